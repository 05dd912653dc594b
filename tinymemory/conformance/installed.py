"""An installed engine as the suite builds it: from the settings given, or from the
throwaway settings its factory offers, so a run never writes to a user's memory
unless told to.

Used by ``pytest --tinymemory-engine=ID`` and ``tinymemory conformance``. This
module imports no Hypothesis: the pytest plugin builds it while configuring.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from tinymemory._engine import MemoryEngine
from tinymemory._errors import ConfigError
from tinymemory._plugin_manager import engine_factories
from tinymemory._registry import build_engine
from tinymemory._settings import EngineCredential, EngineSettings


class InstalledEngine:
    """Builds engine ``engine_id`` for the suite, and says with which settings.

    With ``settings`` given, every engine is built from them (and the second
    user of the isolation check from ``peer_settings``, when given). Without
    them, an engine whose factory offers ``test_settings`` gets a fresh
    temporary folder per engine built, all removed by :meth:`close`; any
    other engine is built from ``fallback``.
    """

    def __init__(
        self,
        engine_id: str,
        credential: EngineCredential,
        *,
        settings: EngineSettings | None,
        peer_settings: EngineSettings | None,
        fallback: EngineSettings,
        settings_option: str,
        peer_option: str,
        fallback_named: str,
    ) -> None:
        factory = engine_factories().get(engine_id)
        if factory is None:
            build_engine(engine_id)  # raises the registry's ConfigError, listing what is installed
            raise ConfigError(f"unknown engine `{engine_id}`")
        self.engine_id = engine_id
        self._credential = credential
        self._test_settings = factory.test_settings if settings is None else None
        self._settings = settings or fallback
        self._peer_settings = peer_settings
        self._folder: Path | None = None
        if self._test_settings is not None:
            self._folder = Path(tempfile.mkdtemp(prefix="tinymemory-conformance-"))
            self.settings_used = (
                "the engine's throwaway test settings, in a temporary folder removed afterwards"
            )
        elif settings is not None:
            self.settings_used = f"the settings of {settings_option}"
        else:
            self.settings_used = f"{fallback_named} (the engine offers no throwaway test settings)"
        #: What the isolation check asks for when two engines built alike share a store.
        self.pair_hint = (
            f"pass {peer_option} with the settings of a second user of the same store "
            "(for an engine keeping one file, another file)"
        )

    def build(self) -> MemoryEngine:
        """A fresh engine: with throwaway settings, one in a folder of its own."""
        settings = self._settings
        if self._test_settings is not None:
            if self._folder is None:
                raise ConfigError("the suite's temporary folder is already removed")
            settings = self._test_settings(Path(tempfile.mkdtemp(dir=self._folder)))
        return build_engine(self.engine_id, settings, self._credential, scrub=False)

    def build_pair(self) -> tuple[MemoryEngine, MemoryEngine]:
        """Two users of one store: the engine and one built from the peer's settings."""
        if self._peer_settings is None:
            raise ConfigError("no second user's settings were given")
        peer = build_engine(self.engine_id, self._peer_settings, self._credential, scrub=False)
        return self.build(), peer

    @property
    def has_peer(self) -> bool:
        """Whether a second user's settings were given."""
        return self._peer_settings is not None

    def close(self) -> None:
        """Remove the temporary folder of the throwaway engines."""
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
