"""The engine's own rules: batch cost, events and labels, chunking, paths, layout, settings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import FAST

from tinymemory import (
    ConfigError,
    Conversation,
    Document,
    EngineCredential,
    EngineError,
    EngineSettings,
    EraseRequest,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    HealthState,
    InvalidRequest,
    Learning,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallRequest,
    Role,
    Turn,
    Unauthorized,
    Unsupported,
    build_engine,
)
from tinymemory.plugin import json_and_id
from tinymemory_cortex import CortexEngine
from tinymemory_cortex.connection import Reply, Request
from tinymemory_cortex.decoding import decode_event
from tinymemory_cortex.envelope import MAX_EVENT_TEXT_BYTES
from tinymemory_cortex.testing import (
    MEMORY_ENDPOINT,
    CortexDouble,
    Fault,
    InMemoryConnection,
    ManualClock,
)

TOKEN = "engine-key"


@pytest.fixture
def double() -> CortexDouble:
    return CortexDouble()


def engine(double: CortexDouble, scope_root: str | None = None) -> CortexEngine:
    return CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static(TOKEN),
        connection=InMemoryConnection(double),
        scope_root=scope_root,
        poll_interval=0.005,
        wait_budget=FAST["wait_budget"],
        settle_budget=0.2,
    )


def bodies(double: CortexDouble) -> list[dict[str, Any]]:
    return [event.body for log in double.tenants[TOKEN].logs.values() for event in log]


def test_store_many_of_100_learnings_costs_five_requests(double: CortexDouble) -> None:
    with engine(double) as memory:
        memory.health()  # learns the actor first, as any earlier call would
        sent = len(double.requests)
        receipts = memory.store_many(Learning(text=f"learning number {n}") for n in range(100))
        assert len(double.requests) - sent == 5
        assert [route for _, route in double.requests[sent:]] == [
            "v1/events",
            "v1/events",
            "v1/experience/bulk",
            "v1/events",
            "v1/recall",
        ]
        assert not any(receipt.replayed for receipt in receipts)
        again = memory.store_many(Learning(text=f"learning number {n}") for n in range(100))
        assert all(receipt.replayed for receipt in again)
        assert double.tenants[TOKEN].events() == 100


def test_an_item_repeated_in_a_batch_is_a_replay_of_its_first_copy(double: CortexDouble) -> None:
    with engine(double) as memory:
        item = Learning(text="twice in one batch")
        first, second = memory.store_many([item, item])
        assert (first.replayed, second.replayed) == (False, True)
        assert first.id == second.id
        assert double.tenants[TOKEN].events() == 1


def test_an_oversized_item_refuses_its_whole_batch_before_any_request(double: CortexDouble) -> None:
    with engine(double) as memory:
        # The text is cut into pieces; an envelope (evidence) over the cap cannot be.
        too_long = Learning(text="fine", evidence="x" * (MAX_EVENT_TEXT_BYTES + 1))
        with pytest.raises(InvalidRequest, match="at most 786432"):
            memory.store_many([Learning(text="fine"), too_long])
        assert double.requests == []


def test_a_long_document_is_cut_into_pieces_and_read_back_whole(double: CortexDouble) -> None:
    body = "# Intro\n" + "word " * 40_000 + "\f# Prices\n" + "ten dollars\n" * 30_000
    document = Document(title="Handbook", body=body, meta=MemoryMeta(tags=("manual",)))
    with engine(double) as memory:
        receipt = memory.store(document)
        events = bodies(double)
        assert len(events) >= 2
        assert double.count("v1/experience/bulk") == 1
        chunks = [json.loads("".join(_parts(event)))["chunk"] for event in events]
        assert [chunk["index"] for chunk in chunks] == list(range(len(events)))
        assert chunks[0]["pages"][0] == 1
        assert chunks[-1]["section"] == "Prices"
        assert "".join(event["content"]["text"] for event in events) == body
        assert [hit.id for hit in memory.list(ListRequest()).items] == [receipt.id]
        assert memory.get(GetRequest(ids=[receipt.id]))[0].text == document.render_text()
        hits = memory.fetch(FetchRequest(query="ten dollars")).hits
        assert [hit.id for hit in hits] == [receipt.id]
        assert "section:Prices" in hits[0].meta.tags
        assert hits[0].text in body
        # A document missing a piece is never listed, and export names it.
        tenant = double.tenants[TOKEN]
        log = tenant.logs["app:tinymemory/app:documents"]
        tenant.logs["app:tinymemory/app:documents"] = log[1:]
        assert memory.list(ListRequest()).items == ()
        assert memory.export(ListRequest()).incomplete == (receipt.id,)
        assert memory.get(GetRequest(ids=[receipt.id])) == []


@pytest.mark.parametrize("char", ["a", "é", "日", "😀", "\n"])
def test_a_learning_or_turn_over_the_event_cap_is_cut_and_read_back_whole(
    double: CortexDouble, char: str
) -> None:
    text = "start " + char * (MAX_EVENT_TEXT_BYTES // len(char.encode()) + 7) + " end"
    learning = Learning(text=text)
    turns = [Turn(role=Role.USER, text="hi"), Turn(role=Role.ASSISTANT, text=text)]
    conversation = Conversation(turns=[*turns, Turn(role=Role.USER, text="ok")])
    with engine(double) as memory:
        ids = [receipt.id for receipt in memory.store_many([learning, conversation])]
        events = bodies(double)
        assert len(events) > 4
        assert all(
            len(event["content"]["text"].encode()) <= MAX_EVENT_TEXT_BYTES for event in events
        )
        again = memory.store_many([learning, conversation])
        assert all(receipt.replayed for receipt in again)
        assert len(bodies(double)) == len(events)
        wanted = {ids[0]: learning, ids[1]: conversation}
        for limit in (1, 2, 50):
            listed = memory.list(ListRequest(limit=limit))
            assert len(listed.items) == min(limit, 2)
        got = memory.get(GetRequest(ids=ids))
        assert {hit.id: hit.text for hit in got} == {
            item_id: item.render_text() for item_id, item in wanted.items()
        }
        exported = memory.export(ListRequest(limit=50))
        assert {entry.id: entry.item for entry in exported.items} == wanted
        assert memory.forget(ForgetTarget.by_ids(ids)).forgotten == 2
        assert memory.list(ListRequest()).items == ()
        assert double.tenants[TOKEN].events() == 0


def _parts(event: dict[str, Any]) -> list[str]:
    labels = [label for label in event["context"]["labels"] if label.startswith("tm:e:")]
    return [
        label.split(":", 3)[3]
        for label in sorted(labels, key=lambda label: int(label.split(":")[2]))
    ]


def test_no_local_path_leaves_the_machine(double: CortexDouble) -> None:
    meta = MemoryMeta(
        workspace="/home/ada/project",
        folder="/home/ada/project/docs",
        file_path="/home/ada/project/docs/pricing.md",
    )
    with engine(double) as memory:
        receipt = memory.store(Document(body="the price list", meta=meta))
        sent = json.dumps(bodies(double))
        assert "/home/ada" not in sent
        assert "pricing.md" in sent
        # This engine gives its own paths back whole; filters match them by digest.
        (hit,) = memory.list(ListRequest(filter=MetaFilter(folder="/home/ada/project"))).items
        assert hit.id == receipt.id
        assert hit.meta == meta
        assert memory.list(ListRequest(filter=MetaFilter(workspace="/home/ada/project"))).items
        assert not memory.list(ListRequest(filter=MetaFilter(folder="/home/bob"))).items
    with engine(double) as elsewhere:
        (hit,) = elsewhere.list(
            ListRequest(filter=MetaFilter(file_path="/home/ada/project/docs"))
        ).items
        assert (hit.meta.file_path, hit.meta.folder, hit.meta.workspace) == (
            "pricing.md",
            None,
            None,
        )


def test_derive_false_and_tool_turns_are_written_with_no_extraction(double: CortexDouble) -> None:
    conversation = Conversation(
        turns=[Turn(role="user", text="run it"), Turn(role="tool", text="exit 0")]
    )
    with engine(double) as memory:
        memory.store(conversation)
        memory.store(Learning(text="do not derive", meta=MemoryMeta(derive=False)))
    directives = {event["content"]["text"]: event.get("directives") for event in bodies(double)}
    assert directives == {
        "run it": None,
        "exit 0": {"extract": []},
        "do not derive": {"extract": []},
    }


def test_an_event_with_too_many_labels_is_written_v2(double: CortexDouble) -> None:
    # Tags ride in the envelope: 40 of 400 characters need some 70 part labels.
    meta = MemoryMeta(tags=tuple(f"tag-{n}-" + "é" * 400 for n in range(40)))
    with engine(double) as memory:
        receipt = memory.store(Learning(text="labelled heavily", meta=meta))
        (event,) = bodies(double)
        assert json.loads(event["content"]["text"])["v"] == 2
        assert not any(label.startswith("tm:e:") for label in event["context"]["labels"])
        assert memory.get(GetRequest(ids=[receipt.id]))[0].meta == meta


def test_layout_v3_scopes_below_the_root(double: CortexDouble) -> None:
    with engine(double, "org:42") as memory:
        memory.store(Learning(text="at the root"))
        memory.store(Document(body="from gmail", meta=MemoryMeta(namespace="source:gmail")))
        memory.store(Learning(text="a flow's", meta=MemoryMeta(namespace="ws:main/service:digest")))
        assert sorted(double.tenants[TOKEN].logs) == [
            "org:42/app:brain/source:gmail",
            "org:42/app:learnings",
            "org:42/ws:main/app:flows/service:digest/app:learnings",
        ]
        assert len(memory.list(ListRequest()).items) == 2  # the sandbox is not read unscoped
        inside = MetaFilter(reach=Reach.exact("ws:main/service:digest"))
        assert len(memory.list(ListRequest(filter=inside)).items) == 1
        with pytest.raises(InvalidRequest, match="repeats the scope root"):
            CortexEngine(
                MEMORY_ENDPOINT,
                EngineCredential.static(TOKEN),
                scope_root="team:a",
                connection=InMemoryConnection(double),
            ).store(Learning(text="x", meta=MemoryMeta(namespace="team:a/agent:b")))


def test_erase_goes_deepest_first_and_a_stored_again_item_is_new(double: CortexDouble) -> None:
    with engine(double) as memory:
        item = Learning(text="erase me", meta=MemoryMeta(namespace="team:ops/agent:pager"))
        memory.store(item)
        memory.store(Learning(text="and me", meta=MemoryMeta(namespace="team:ops")))
        report = memory.erase(EraseRequest(reach=Reach.subtree("team:ops")))
        assert report.erased_scopes == 2
        assert len(report.receipts) == 2
        assert not memory.store(item).replayed


def test_forget_sends_ids_in_batches_of_100_and_never_an_empty_selector(
    double: CortexDouble,
) -> None:
    with engine(double) as memory:
        receipts = memory.store_many(Learning(text=f"forget {n}") for n in range(100))
        receipts += memory.store_many(Learning(text=f"forget more {n}") for n in range(50))
        forgets = double.count("v1/forget")
        report = memory.forget(ForgetTarget.by_ids([receipt.id for receipt in receipts]))
        assert report.forgotten == 150
        assert double.count("v1/forget") - forgets == 2
        assert memory.forget(ForgetTarget.by_ids(["0" * 40])).forgotten == 0
        assert double.count("v1/forget") - forgets == 2


def test_recall_answers_from_one_pack_and_cites_every_scope(double: CortexDouble) -> None:
    with engine(double) as memory:
        memory.store(Learning(text="the harbour cranes are red"))
        memory.store(
            Learning(text="the harbour cranes are tall", meta=MemoryMeta(namespace="agent:a"))
        )
        answer = memory.recall(
            RecallRequest(question="harbour cranes", filter=MetaFilter(reach=Reach.of("agent:a")))
        )
        assert double.count("v1/answer") == 1
        assert {citation.snippet for citation in answer.citations} == {
            "the harbour cranes are red",
            "the harbour cranes are tall",
        }
        assert answer.model == "cortex-double"
        nothing = MetaFilter(kinds=[], reach=Reach.exact("agent:none"))
        assert memory.recall(RecallRequest(question="cranes", filter=nothing)).citations == ()


def test_only_hybrid_fetch_is_offered(double: CortexDouble) -> None:
    with engine(double) as memory:
        with pytest.raises(Unsupported):
            memory.fetch(FetchRequest(query="x", mode=FetchMode.KEYWORD))
        assert double.requests == []


def test_health_is_degraded_on_unavailable_and_down_on_refusal(double: CortexDouble) -> None:
    with engine(double) as memory:
        assert memory.health().state is HealthState.OK
        double.inject(Fault("v1/admin/health", status=503))
        health = memory.health()
        assert health.state is HealthState.DEGRADED
        assert health.reason is not None
        assert health.reason.endswith("(detail withheld)")
        double.inject(Fault("v1/admin/health", status=500, code="BROKEN"))
        assert memory.health().state is HealthState.DEGRADED
        double.inject(Fault("v1/admin/health", status=402))
        assert memory.health().state is HealthState.DOWN


@pytest.mark.parametrize("copies", [1, 2])
def test_a_listing_read_once_or_twice_per_event_gives_each_item_once(copies: int) -> None:
    # The wire reference measured every event listed twice (§4.2); the vendors' clients
    # see it once. The engine reads both, a copy split across a page boundary included.
    double = CortexDouble(listing_copies=copies)
    with engine(double) as memory:
        stored = [memory.store(Learning(text=f"copy {n}")).id for n in range(7)]
        seen: list[str] = []
        cursor = None
        while True:
            page = memory.list(ListRequest(limit=3, cursor=cursor))
            seen += [hit.id for hit in page.items]
            cursor = page.next_cursor
            if cursor is None:
                break
    assert sorted(seen) == sorted(stored)


def test_a_listing_that_does_not_advance_is_an_engine_error(double: CortexDouble) -> None:
    from tinymemory import EngineError

    double.listing_copies = 2  # two pages of listing for 200 items
    with engine(double) as memory:
        memory.store_many(Learning(text=f"n {n}") for n in range(100))
        memory.store_many(Learning(text=f"m {n}") for n in range(100))
        original = double._events

        def stuck(*args: Any) -> Any:
            answer = original(*args)
            return type(answer)(
                answer.status, {**answer.body, "next_cursor": args[1].get("cursor", "0")}
            )

        double._events = stuck  # type: ignore[method-assign]
        with pytest.raises(EngineError, match="does not advance"):
            memory.list(ListRequest(limit=500))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (EngineSettings(endpoint="http://example.com"), "cleartext"),
        (EngineSettings(endpoint="ftp://example.com"), "http or https"),
        (EngineSettings(tenant_root="org:1"), "tenant_root"),
        (EngineSettings(scope_root="tm:x"), "scope_root"),
        (EngineSettings(scope_root="app:tinymemory"), "legacy layout root"),
        (EngineSettings(headers={"Authorization": "Bearer x"}), "reserved"),
        (EngineSettings(options={"colour": 1}), "no option `colour`"),
        (EngineSettings(options={"timeout": 0}), "seconds above 0"),
    ],
)
def test_bad_settings_are_config_errors(settings: EngineSettings, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_engine("cortexdb", settings, EngineCredential.static("k"), scrub=False)


def test_a_key_is_needed() -> None:
    with pytest.raises(ConfigError, match="needs a key"):
        build_engine("cortexdb", EngineSettings(), scrub=False)


def test_events_decode_only_with_an_id_and_text() -> None:
    assert decode_event({"content": {"text": "x"}}) is None
    assert decode_event("not an event") is None


@pytest.mark.parametrize(
    ("root", "path", "parsed"),
    [
        (None, "app:tinymemory/team:ops/agent:pager/app:learnings", "team:ops/agent:pager"),
        (None, "org:7/app:tinymemory/app:documents", "root"),
        (None, "app:tinymemory/team:ops", None),
        (None, "app:tinymemory/tm:x/app:learnings", None),
        ("org:42", "org:42/app:brain/source:github/project:api", "source:github/project:api"),
        (
            "org:42",
            "org:42/ws:main/app:flows/service:newsletter/app:learnings",
            "ws:main/service:newsletter",
        ),
        ("org:42", "org:42/ws:main/service:newsletter/app:learnings", None),
        ("org:42", "org:43/app:learnings", None),
    ],
)
def test_listed_paths_are_ours_only_when_they_render_back(
    root: str | None, path: str, parsed: str | None
) -> None:
    from tinymemory_cortex.layout import Layout

    scope = Layout(root).parse(path)
    assert (None if scope is None else str(scope.namespace)) == parsed


def test_a_v3_root_is_registered_with_its_owner_once(double: CortexDouble) -> None:
    def owned(scope_owner: str) -> CortexEngine:
        return CortexEngine(
            MEMORY_ENDPOINT,
            EngineCredential.static(TOKEN),
            scope_root="org:42",
            scope_owner=scope_owner,
            connection=InMemoryConnection(double),
            poll_interval=0.005,
            settle_budget=0.2,
        )

    double.inject(Fault("v1/scopes", status=500))
    with owned("user:42") as memory:
        memory.store(Learning(text="stored even though registration failed"))
        assert "org:42" not in double.tenants[TOKEN].registered
        memory.store(Learning(text="the next write registers"))
        memory.store(Learning(text="and no write after it"))
    assert double.tenants[TOKEN].registered["org:42"] == [{"actor": "user:42", "role": "owner"}]
    assert double.count("v1/scopes", "POST") == 2
    with owned("user:43") as other:  # already registered (409): done, members untouched
        other.store(Learning(text="a second owner"))
    assert double.tenants[TOKEN].registered["org:42"] == [{"actor": "user:42", "role": "owner"}]
    assert double.count("v1/scopes", "POST") == 3
    assert double.count("v1/scopes/members") == 0
    double.inject(Fault("v1/scopes", status=403, code="POLICY_DENIED"))
    with owned("user:9") as refused:
        token_events = double.tenants[TOKEN].events()
        with pytest.raises(Unauthorized, match="could not be registered for its owner user:9"):
            refused.store(Learning(text="never written under an unowned root"))
        assert double.tenants[TOKEN].events() == token_events
    with pytest.raises(ConfigError, match="needs a `scope_root`"):
        CortexEngine(MEMORY_ENDPOINT, EngineCredential.static(TOKEN), scope_owner="user:1")


@pytest.mark.parametrize("status_route", [True, False])
def test_an_accepted_erasure_is_followed_to_completion_or_taken_as_its_receipt(
    double: CortexDouble, status_route: bool
) -> None:
    double.erasures_accepted = True
    double.erasure_status_route = status_route
    with engine(double) as memory:
        memory.store(Learning(text="erase me"))
        report = memory.erase(EraseRequest(reach=Reach.subtree(Namespace.ROOT), whole_tree=True))
        assert report.erased_scopes == 1
        assert report.receipts[0].startswith("erasure_")
        assert not memory.list(ListRequest()).items
    assert double.count("v1/erasures/" + report.receipts[0], "GET") == 1


@pytest.mark.parametrize("read", ["fetch", "recall"])
def test_a_budget_excerpt_is_never_passed_off_as_the_item(double: CortexDouble, read: str) -> None:
    text = "prefers the dark colour scheme everywhere"
    double.pack_token_cap = 6  # every pack holds excerpts of 6 bytes: "prefer"
    with engine(double) as memory:
        item_id = memory.store(Learning(text=text)).id
        if read == "fetch":
            hits = memory.fetch(FetchRequest(query="dark colour scheme")).hits
            assert [(hit.id, hit.text) for hit in hits] == [(item_id, text)]
        else:
            answer = memory.recall(RecallRequest(question="dark colour scheme"))
            assert [(cited.id, cited.snippet) for cited in answer.citations] == [(item_id, text)]


def test_a_partial_bulk_names_what_was_refused_and_a_second_store_writes_only_that(
    double: CortexDouble,
) -> None:
    turns = [Turn(role="user", text=f"turn {number}") for number in range(3)]
    talk = Conversation(turns=[*turns[:1], Turn(role="user", text="turn refused"), *turns[2:]])
    double.bulk_refused_text = "refused"
    with engine(double) as memory:
        with pytest.raises(
            EngineError, match=r"wrote 2 of 3 events; refused: events \[1\]"
        ) as raised:
            memory.store(talk)
        assert json_and_id(talk)[1] in raised.value.message
        assert "— INVALID_BODY refused" in raised.value.message
        double.bulk_refused_text = None
        assert not memory.store(talk).replayed
        sent = double.tenants[TOKEN].events()
        assert sent == 3  # the two that landed, and the refused one now


def test_scope_listings_are_read_in_every_shape_the_vendor_clients_read(
    double: CortexDouble,
) -> None:
    from tinymemory_cortex.layout import Layout
    from tinymemory_cortex.log import EventLog

    paths = ["app:tinymemory/app:learnings", "app:tinymemory/agent:a/app:documents"]
    shapes: list[object] = [
        paths,
        {"items": [{"path": path} for path in paths]},
        {"items": [{"scope": path} for path in paths]},
        {"scopes": paths},
    ]

    class Listing:
        def __init__(self, shape: object) -> None:
            self.shape = shape

        def get(self, route: str, params: object) -> object:
            return self.shape

    for shape in shapes:
        log = EventLog(Listing(shape), Layout(None))  # type: ignore[arg-type]
        found = log.scopes_under("app:tinymemory", complete=True)
        assert sorted(scope.path for scope in found) == sorted(paths)


@pytest.mark.parametrize("reset", ["1", "epoch+1"])
def test_a_429_without_retry_after_pauses_on_x_ratelimit_reset(
    double: CortexDouble, reset: str
) -> None:
    served = InMemoryConnection(double)

    class Limited:
        refused = 0

        def exchange(self, request: Request) -> Reply:
            if self.refused == 0 and "v1/events" in request.url:
                self.refused += 1
                value = str(int(clock.wall()) + 1) if reset == "epoch+1" else reset
                return Reply(429, {"x-ratelimit-reset": value}, b"{}")
            return served.exchange(request)

        def close(self) -> None:
            return None

    clock = ManualClock()
    memory = CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static(TOKEN),
        connection=Limited(),
        backoff=0.0,
        clock=clock,
    )
    with memory:
        assert memory.list(ListRequest()).items == ()
        assert clock.now() == pytest.approx(1.0)


def test_a_whoami_naming_actor_and_no_caller_names_the_actor() -> None:
    double = CortexDouble({TOKEN: "user:x"}, require_actor=True)
    served = InMemoryConnection(double)

    class ActorOnly:
        def exchange(self, request: Request) -> Reply:
            reply = served.exchange(request)
            if request.url.endswith("v1/auth/whoami"):
                return Reply(reply.status, reply.headers, json.dumps({"actor": "user:x"}).encode())
            return reply

        def close(self) -> None:
            return None

    with CortexEngine(
        MEMORY_ENDPOINT, EngineCredential.static(TOKEN), connection=ActorOnly()
    ) as memory:
        assert memory.list(ListRequest()).items == ()  # refused without the actor header
    assert double.count("v1/auth/whoami") == 1
