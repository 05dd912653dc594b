"""The hosted client ``tinyhumansai`` 0.5.6 reads the double's hosted routes through its transport.

Its public methods (``ingest_memory``, ``recall_memory``, ``insert_document``,
...) call routes the engine never uses (``memory/insert``,
``memory/memories/recall``, ``memory/documents``, ...): the double refuses
them as unknown (404), and docs/engines/cortexdb.md says why. What the
client does share with the engine is its transport: the bearer, and the
``{success, data}`` envelope it unwraps (``_parse_response`` returns
``payload["data"]``). Every hosted route the engine uses is sent through
that transport and must come back unwrapped, except the erasure
passthrough, which the wire reference documents as not enveloped (§4.7):
the client cannot read it, a limit of the client shown here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tinyhumansai import TinyHumansMemoryClient
from tinyhumansai.types import TinyHumansError

from tinymemory_cortex.testing import CortexDouble, DoubleServer

TOKEN = "tiny_live_hosted-judge-01"
SCOPE = "app:tinymemory/app:learnings"
EXPERIENCE = {
    "scope": SCOPE,
    "modality": "observation",
    "content": {"kind": "message", "role": "user", "text": "the refund window is 30 days"},
    "context": {"labels": ["tm:i:0123456789abcdef"]},
}


@pytest.fixture
def client() -> Iterator[tuple[TinyHumansMemoryClient, CortexDouble]]:
    double = CortexDouble({TOKEN: "user:hosted"})
    with DoubleServer(double) as server:
        sdk = TinyHumansMemoryClient(TOKEN, base_url=server.url)
        try:
            yield sdk, double
        finally:
            sdk.close()


def test_every_hosted_route_of_the_engine_unwraps_through_the_clients_transport(
    client: tuple[TinyHumansMemoryClient, CortexDouble],
) -> None:
    sdk, double = client
    written = sdk._send("POST", "/memory/experience", EXPERIENCE)
    assert written["event_id"].startswith("evt_")
    listed = sdk._send_get("/memory/events", {"scope": SCOPE, "labels": "tm:i:0123456789abcdef"})
    assert [item["id"] for item in listed["items"]] == [written["event_id"]]
    recall = {"scope": SCOPE, "query": "refund", "view": "granular", "include": ["events"]}
    pack = sdk._send("POST", "/memory/recall", recall)
    assert [event["id"] for event in pack["layers"]["events"]] == [written["event_id"]]
    question = {"scope": SCOPE, "question": "refund?", "use_pack_id": pack["pack_id"]}
    assert "30 days" in sdk._send("POST", "/memory/answer", question)["answer"]
    [listed_scope] = sdk._send_get("/memory/scopes", {"limit": "1000"})["scopes"]
    assert listed_scope.endswith(f"/{SCOPE}")  # below the tenant's root, which the backend pins
    selector = {"memory_ids": [written["event_id"]]}
    forget = {"scope": SCOPE, "selector": selector, "cascade": "redact_events"}
    assert sdk._send("POST", "/memory/forget", forget)["deleted"] == {"events": 1}
    assert sdk._send_delete("/memory")["erased"] is True
    assert double.tenants[TOKEN].events() == 0


def test_the_erasure_passthrough_is_bare_and_the_client_cannot_read_it(
    client: tuple[TinyHumansMemoryClient, CortexDouble],
) -> None:
    sdk, _ = client
    sdk._send("POST", "/memory/experience", EXPERIENCE)
    # §4.7: memory-api answers this route in its own dialect, "not wrapped in {success,data}".
    with pytest.raises(KeyError, match="data"):
        sdk._send("POST", "/memory/v1/erasures", {"scope": SCOPE})


def test_a_refusal_reads_as_the_clients_error_with_the_backends_words(
    client: tuple[TinyHumansMemoryClient, CortexDouble],
) -> None:
    sdk, _ = client
    with pytest.raises(TinyHumansError) as raised:
        sdk._send("POST", "/memory/experience", {**EXPERIENCE, "scope": "not a scope"})
    assert raised.value.status == 400
    assert raised.value.body["success"] is False
    assert raised.value.body["errorCode"] == "BAD_REQUEST"


@pytest.mark.parametrize(
    ("call", "route"),
    [
        (lambda sdk: sdk.recall_memory(namespace="n", prompt="refund"), "memory/query"),
        (lambda sdk: sdk.recall_memories(namespace="n"), "memory/memories/recall"),
        (lambda sdk: sdk.list_documents(namespace="n"), "memory/documents"),
    ],
    ids=["recall_memory", "recall_memories", "list_documents"],
)
def test_its_public_methods_call_routes_outside_the_engines_use(
    client: tuple[TinyHumansMemoryClient, CortexDouble], call: object, route: str
) -> None:
    sdk, double = client
    with pytest.raises(TinyHumansError) as raised:
        call(sdk)  # type: ignore[operator]
    assert raised.value.status == 404
    assert double.count(route) == 1
