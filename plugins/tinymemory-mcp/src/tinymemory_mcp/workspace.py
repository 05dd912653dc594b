"""``--workspace``: an engine whose every item belongs to one workspace.

``MemoryTools`` fixes whose memory a model touches (the namespace); it has no
notion of a workspace, and the spec's ``ToolScope`` holds none. A server
started with ``--workspace W`` wraps its engine in :class:`WorkspaceEngine`,
so the workspace is fixed below the tools, for the context document too:
every stored item is given workspace ``W``, every read and forget is
confined to it, and a filter naming another workspace is refused before the
engine is asked anything.
"""

from __future__ import annotations

import builtins

import attrs

from tinymemory import (
    MAX_GET_IDS,
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    ExportPage,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ListPage,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    Unsupported,
)
from tinymemory.plugin import EngineWrapper


class WorkspaceEngine(EngineWrapper):
    """``inner``, confined to the items of ``workspace``; stored items are given it."""

    def __init__(self, inner: MemoryEngine, workspace: str) -> None:
        if not isinstance(workspace, str) or not workspace.strip():
            raise InvalidRequest("the workspace must be a non-blank string")
        super().__init__(inner)
        self.workspace = workspace

    # --- writes ---------------------------------------------------------------------

    def _placed(self, item: StoreItem) -> StoreItem:
        if item.meta.workspace not in (None, self.workspace):
            raise InvalidRequest(
                f"this memory is fixed to workspace `{self.workspace}`; "
                f"an item of workspace `{item.meta.workspace}` cannot be stored in it"
            )
        return item.with_meta(attrs.evolve(item.meta, workspace=self.workspace))

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.store(self._placed(item))

    def handle_store_many(self, items: builtins.list[StoreItem]) -> builtins.list[StoreReceipt]:
        return self.inner.store_many([self._placed(item) for item in items])

    # --- reads ----------------------------------------------------------------------

    def _confined(self, filter: MetaFilter) -> MetaFilter:
        if filter.workspace not in (None, self.workspace):
            raise InvalidRequest(
                "`filter.workspace` is fixed by the host to this server's workspace "
                "and cannot name another"
            )
        return attrs.evolve(filter, workspace=self.workspace)

    def _mine(self, hits: builtins.list[Hit]) -> builtins.list[Hit]:
        return [hit for hit in hits if hit.meta.workspace == self.workspace]

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        return self.inner.recall(attrs.evolve(request, filter=self._confined(request.filter)))

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        return self.inner.fetch(attrs.evolve(request, filter=self._confined(request.filter)))

    def handle_list(self, request: ListRequest) -> ListPage:
        return self.inner.list(attrs.evolve(request, filter=self._confined(request.filter)))

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return self.inner.explore(attrs.evolve(request, filter=self._confined(request.filter)))

    def handle_export(self, request: ListRequest) -> ExportPage:
        return self.inner.export(attrs.evolve(request, filter=self._confined(request.filter)))

    def handle_get(self, request: GetRequest) -> builtins.list[Hit]:
        return self._mine(self.inner.get(request))

    # --- forgetting -------------------------------------------------------------------

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        if target.filter is not None:
            return self.inner.forget(ForgetTarget.by_filter(self._confined(target.filter)))
        # By ids: only the ids of this workspace, read back first (``get`` is confined).
        ids = target.ids or ()
        found: builtins.list[str] = []
        for start in range(0, len(ids), MAX_GET_IDS):
            batch = ids[start : start + MAX_GET_IDS]
            found.extend(hit.id for hit in self.get(GetRequest(ids=batch)))
        if not found:
            return ForgetReport(0)
        return self.inner.forget(ForgetTarget.by_ids(found))

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        raise Unsupported(
            f"erase cannot be confined to workspace `{self.workspace}`; "
            "use forget with a filter instead"
        )
