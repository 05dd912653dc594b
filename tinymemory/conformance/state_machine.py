"""The state machine: random sequences of writes against the engine under test
and the reference engine side by side.

Each run stores, stores in batches, forgets by ids and by filter, and erases,
drawing items, filters and nodes from small pools so that reads overlap.
After every step it compares what ``list``, ``get`` and ``explore`` return
under every reach, and checks that every fetch and recall hit is a stored
item the filter and the reach admit. Ranking is the engine's own business;
filtering, reach, replay and counts are not.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import attrs
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tinymemory._items import (
    Conversation,
    Document,
    Learning,
    LearningKind,
    Role,
    StoreItem,
    Turn,
)
from tinymemory._meta import ItemKind, MemoryMeta, MetaFilter, SourceKind, SourceRef
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    EraseRequest,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    RecallRequest,
)

from .harness import Call, Harness, Label, Subject
from .oracle import Twin
from .properties import bounded_shrinking, example_settings

CHECK = "matches_reference"

_ROOT = Namespace.ROOT
_HOME = Namespace.parse("project:conformance")
#: The nodes items are stored at: the root, a project, an agent below it, a node
#: two levels below that (four deep), a sandbox below the project, and a sibling project.
NODES = (
    _ROOT,
    _HOME,
    Namespace.parse("project:conformance/agent:scout"),
    Namespace.parse("project:conformance/agent:scout/user:deep/agent:deepest"),
    Namespace.parse("project:conformance/service:job"),
    # The suite erases at every node but the root, which removes every item
    # there, whoever stored it: those nodes are named for the suite, so a run
    # on an engine holding real memory erases only what the suite put there.
    Namespace.parse("project:conformance-sibling"),
)
#: No reach, and every reach at every node.
REACHES: tuple[Reach | None, ...] = (
    None,
    *(make(node) for node in NODES for make in (Reach.of, Reach.exact, Reach.subtree)),
)
_WORDS = ("harbour", "crane", "ledger", "orbit", "signal", "meadow")
_TAGS = ("red", "green", "blue")
_FOLDERS = ("docs", "docs/api", "Docs", "src", "s_c", "s%c/é")
_AGENTS = ("ada", "bob")
_DATES = tuple(
    datetime(year, 3, 1, 0, 0, 0, micro, tzinfo=UTC)
    for year, micro in ((2021, 0), (2023, 0), (2023, 1), (2025, 999_999))
)


def _maybe(values: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.none() | st.sampled_from(values)


@st.composite
def pooled_items(draw: st.DrawFn) -> StoreItem:
    """Items whose text and metadata come from small pools, so filters and queries hit."""
    text = " ".join(draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4)))
    meta = MemoryMeta(
        namespace=draw(st.sampled_from(NODES)),
        folder=draw(_maybe(_FOLDERS)),
        agent_id=draw(_maybe(_AGENTS)),
        source=SourceRef(kind=draw(st.sampled_from((SourceKind.AGENT, SourceKind.FILE)))),
        tags=draw(st.lists(st.sampled_from(_TAGS), max_size=2, unique=True)),
        observed_at=draw(_maybe(_DATES)),
    )
    kind = draw(st.sampled_from(ItemKind))
    if kind is ItemKind.DOCUMENT:
        return Document(title=draw(_maybe(("Notes", "Plan"))), body=text, meta=meta)
    if kind is ItemKind.CONVERSATION:
        roles = draw(st.lists(st.sampled_from((Role.USER, Role.ASSISTANT)), min_size=1, max_size=2))
        return Conversation(turns=[Turn(role=role, text=text) for role in roles], meta=meta)
    return Learning(
        text=text,
        kind=draw(st.sampled_from(LearningKind)),
        confidence=draw(st.sampled_from((0.5, 0.9, 0.1, 1 / 3))),
        meta=meta,
    )


@st.composite
def pooled_filters(draw: st.DrawFn) -> MetaFilter:
    """Filters over the same pools: any subset of their fields."""
    fields: dict[str, Any] = {}
    options: dict[str, st.SearchStrategy[Any]] = {
        "reach": st.sampled_from(REACHES[1:]),
        "kinds": st.lists(st.sampled_from(ItemKind), min_size=1, max_size=2, unique=True),
        "sources": st.just([SourceKind.FILE]),
        "tags_any": st.lists(st.sampled_from(_TAGS), min_size=1, max_size=2, unique=True),
        "folder": st.sampled_from(_FOLDERS),
        "agent_id": st.sampled_from(_AGENTS),
        "observed_after": st.sampled_from(_DATES),
        "observed_before": st.sampled_from(_DATES),
    }
    for name in draw(st.lists(st.sampled_from(sorted(options)), max_size=3, unique=True)):
        fields[name] = draw(options[name])
    return MetaFilter(**fields)


def _label(item: StoreItem) -> str:
    """How failures name an item: kind, text and node."""
    return f"{item.item_kind.value} {item.render_text()[:40]!r} at {item.meta.namespace}"


class _Machine(RuleBasedStateMachine):
    """Compares the engine under test with the reference engine after every step."""

    subject: Subject
    stored = Bundle("stored")

    def __init__(self) -> None:
        super().__init__()
        self.h = Harness(CHECK, self.subject.build(CHECK))
        self.twin = Twin(self.h)
        self.reference = self.twin.reference
        self.erases = True
        workspace = self.h.workspace
        self.run_filter = MetaFilter(workspace=workspace)
        self.node_filters = [
            (node, MetaFilter(reach=Reach.exact(node), workspace=workspace)) for node in NODES
        ]
        self.reach_filters = [
            (reach, MetaFilter(reach=reach, workspace=workspace)) for reach in REACHES
        ]

    def teardown(self) -> None:
        self.h.clean_up(verify=False)
        self.h.engine.close()

    # --- helpers ----------------------------------------------------------

    def _placed(self, item: StoreItem) -> StoreItem:
        placed = self.h.in_run(item)
        self.h.name(placed.fingerprint(), _label(placed))
        return placed

    def _in_run(self, filter: MetaFilter) -> MetaFilter:
        return attrs.evolve(filter, workspace=self.h.workspace)

    # --- writes -----------------------------------------------------------

    @rule(target=stored, item=pooled_items())
    def store(self, item: StoreItem) -> str:
        placed = self._placed(item)
        got = self.h.store(placed, _label(placed))
        self.twin.same_receipts("store", [got], [self.reference.store(placed)])
        return got.id

    @rule(items=st.lists(pooled_items(), min_size=1, max_size=5))
    def store_many(self, items: list[StoreItem]) -> None:
        placed = [self._placed(item) for item in items]
        got = self.h.store_many(placed)
        wanted = self.reference.store_many(placed)
        self.twin.same_receipts(f"store_many({len(placed)} items)", got, wanted)

    @rule(ids=st.lists(stored, min_size=1, max_size=4), unknown=st.booleans())
    def forget_ids(self, ids: list[str], unknown: bool) -> None:
        target = ForgetTarget.by_ids([*ids, f"{self.h.marker}-unknown"] if unknown else ids)
        wanted = self.reference.forget(target).forgotten
        got = self.h.forget(target)
        self.h.expect(got == wanted, Call("forget", target), f"{wanted} forgotten", got)

    @rule(filter=pooled_filters())
    def forget_filter(self, filter: MetaFilter) -> None:
        target = ForgetTarget.by_filter(self._in_run(filter))
        wanted = self.reference.forget(target).forgotten
        got = self.h.forget(target)
        self.h.expect(got == wanted, Call("forget", target), f"{wanted} forgotten", got)

    @rule(
        at=st.sampled_from(NODES[1:]),
        descendants=st.booleans(),
        kinds=st.lists(st.sampled_from(ItemKind), max_size=2, unique=True),
    )
    def erase(self, at: Namespace, descendants: bool, kinds: list[ItemKind]) -> None:
        if not self.erases:
            return
        request = EraseRequest(reach=Reach(at, inherit=False, descendants=descendants), kinds=kinds)
        if self.h.erase(request) is None:
            self.erases = False
            return
        self.reference.erase(request)

    # --- reads that must be admitted -------------------------------------

    @rule(query=st.sampled_from(_WORDS), filter=pooled_filters(), data=st.data())
    def fetch(self, query: str, filter: MetaFilter, data: st.DataObject) -> None:
        modes = self.h.engine.descriptor.fetch_modes
        if not modes:
            return
        mode: FetchMode = data.draw(st.sampled_from(modes), label="mode")
        request = FetchRequest(query=query, mode=mode, filter=self._in_run(filter), limit=50)
        admitted = {hit.id: hit for hit in self.twin.expected(request.filter)}
        hits = self.h.fetch(request)
        call = Call("fetch", request)
        self._expect_admitted(call, [hit.id for hit in hits], admitted)
        # A ranked hit may carry the best piece of a long document rather than
        # the whole text, so only its id and kind must match the stored item.
        for hit in hits:
            kind = admitted[hit.id].kind
            self.h.expect(hit.kind is kind, call, f"a {kind.value} hit", hit.kind)

    @rule(query=st.sampled_from(_WORDS), filter=pooled_filters())
    def recall(self, query: str, filter: MetaFilter) -> None:
        request = RecallRequest(question=query, filter=self._in_run(filter), limit=5)
        admitted = {hit.id: hit for hit in self.twin.expected(request.filter)}
        answer = self.h.recall(request)
        call = Call("recall", request)
        cited = [citation.id for citation in answer.citations]
        self.h.expect(len(cited) <= 5, call, "at most 5 citations", len(cited))
        self._expect_admitted(call, cited, admitted)
        for citation in answer.citations:
            kind = admitted[citation.id].kind
            self.h.expect(citation.kind is kind, call, f"a {kind.value} citation", citation.kind)

    def _expect_admitted(self, call: Label, ids: list[str], admitted: dict[str, Hit]) -> None:
        self.h.expect(len(ids) == len(set(ids)), call, "no item twice", self.h.names(ids))
        stray = [item_id for item_id in ids if item_id not in admitted]
        self.h.expect(not stray, call, "only items the filter admits", self.h.names(stray))

    @rule(facet=st.sampled_from(Facet), filter=pooled_filters())
    def explore(self, facet: Facet, filter: MetaFilter) -> None:
        self.twin.explores(ExploreRequest(facet=facet, filter=self._in_run(filter), limit=500))

    @rule(filter=pooled_filters(), limit=st.sampled_from((1, 3, 200)))
    def export(self, filter: MetaFilter, limit: int) -> None:
        self.twin.exports(self._in_run(filter), limit)

    # --- reads that must agree after every step --------------------------

    @invariant()
    def reads_agree(self) -> None:
        """Under every reach: the same listing, the same get, the same count per node.

        The reference is read once per node; what a reach should return is
        the items of the nodes it admits, as the reference itself decides.
        """
        by_node = {node: self.twin.expected(filter) for node, filter in self.node_filters}
        known = {hit.id: hit for hits in by_node.values() for hit in hits}
        asked = [*sorted(known, reverse=True), f"{self.h.marker}-unknown"]
        for reach, filter in self.reach_filters:
            admitted = [node for node in NODES if Reach.admitted_by(reach, node)]
            wanted = [hit for node in admitted for hit in by_node[node]]
            listed = self.h.listed(filter, page=7)
            self.twin.same_hits(Call("list", filter), wanted, listed, ordered=False)
            visible = {hit.id for hit in wanted}
            in_order = [known[item_id] for item_id in asked if item_id in visible]
            got = self.h.get(asked, reach)
            self.twin.same_hits(
                Call("get", GetRequest(ids=asked, reach=reach)), in_order, got, ordered=True
            )
            request = ExploreRequest(facet=Facet.NAMESPACE, filter=filter, limit=500)
            counts = {str(node): len(by_node[node]) for node in admitted if by_node[node]}
            self._expect_counts(request, (counts, len(wanted), 0, False))
        for facet in (Facet.KIND, Facet.TAG, Facet.FOLDER):
            self.twin.explores(ExploreRequest(facet=facet, filter=self.run_filter, limit=500))

    def _expect_counts(self, request: ExploreRequest, expected: tuple[object, ...]) -> None:
        """Explore must answer (buckets, total, missing, truncated) = ``expected``."""
        got = self.h.explore(request)
        shape = ({b.value: b.count for b in got.buckets}, got.total, got.missing, got.truncated)
        self.h.expect(
            shape == expected,
            Call("explore", request),
            "buckets, total, missing, truncated = " + repr(expected),
            repr(shape),
        )


def check_matches_reference(subject: Subject) -> None:
    """Random writes leave the engine reading exactly as the reference engine does."""
    machine = type("EngineMatchesReference", (_Machine,), {"subject": subject})
    profile = subject.profile
    chosen = settings(
        example_settings(profile.machine_runs), stateful_step_count=profile.machine_steps
    )
    # Older Hypothesis releases leave this function unannotated; through a typed
    # name the call type-checks with every release.
    run_machine: Callable[..., None] = run_state_machine_as_test
    with bounded_shrinking():
        run_machine(machine, settings=chosen)
