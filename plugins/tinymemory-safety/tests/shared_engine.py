"""A test plugin offering the engine ``shared``, whose every build stores into one store."""

from __future__ import annotations

import tinymemory as tm
from tinymemory.plugin import EngineFactory, EngineWrapper, hookimpl


class _Shared(EngineWrapper):
    """The shared store as one build gets it: closing a build leaves the store open."""

    def close(self) -> None:
        return


class SharedEnginePlugin:
    """Offers the engine ``shared``: every build stores into ``stored``, read back by ``held``."""

    def __init__(self) -> None:
        self.stored = tm.ReferenceEngine()
        self.descriptor = tm.EngineDescriptor(
            id="shared",
            label="Shared",
            description="Every build stores into one reference engine.",
            fetch_modes=[tm.FetchMode.KEYWORD],
        )

    @hookimpl
    def tinymemory_engines(self) -> list[EngineFactory]:
        return [EngineFactory(descriptor=self.descriptor, build=self.build)]

    def build(self, settings: tm.EngineSettings, credential: tm.EngineCredential) -> _Shared:
        return _Shared(self.stored)

    def held(self) -> list[tm.StoreItem]:
        """Every item the shared store holds, as stored."""
        return [exported.item for exported in self.stored.export(tm.ListRequest(limit=100)).items]
