"""The vendor's own Python SDK, ``cortexdbai`` 0.12.0, drives the double through every operation.

The SDK is CortexDB's client of the Direct wire: whatever it sends, the
service accepts, so the double must accept it too (and answer in the shapes
the SDK reads). It talks HTTP through its own ``requests`` session, so the
double is served on a loopback port (:class:`DoubleServer`).

A newer SDK: re-read ``cortexdb/v1/client.py`` (its body builders
``_envelope``, ``_forget_body``, ``_erasure_body``, the ``recall`` and
``answer`` bodies, ``_canonical_json_bytes``, ``_flattened_content_size``)
and :mod:`sdk_judge`; a new field the SDK always sends (as ``diagnostics``
became) must be accepted by the double, a new closed rule enforced there.
The pin lives in the plugin's ``test`` extra.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from cortexdb.v1.client import V1Client
from cortexdb.v1.exceptions import V1APIError, V1InvalidRequestError
from sdk_judge import JudgingConnection

from tinymemory_cortex.testing import CortexDouble, DoubleServer

TOKEN = "sdk-key"
SCOPE = "app:tinymemory/agent:sdk/app:learnings"
OTHER = "app:tinymemory/agent:sdk/app:documents"


@pytest.fixture
def served() -> Iterator[DoubleServer]:
    with DoubleServer(CortexDouble({TOKEN: "user:sdk"}, require_actor=True)) as server:
        yield server


@pytest.fixture
def client(served: DoubleServer) -> Iterator[V1Client]:
    with V1Client(served.url, actor="user:sdk", bearer=TOKEN, timeout=10) as sdk:
        yield sdk


def test_whoami_and_capabilities(client: V1Client) -> None:
    assert client.whoami()["caller"] == "user:sdk"
    assert "refers_to_v1" in client.capabilities()


def test_a_wrong_actor_is_refused_as_the_service_refuses_it(served: DoubleServer) -> None:
    with V1Client(served.url, actor="user:else", bearer=TOKEN) as sdk, pytest.raises(V1APIError):
        sdk.whoami()
    with (
        pytest.raises(V1APIError) as raised,
        V1Client(served.url, actor="user:else", bearer=TOKEN) as sdk,
    ):
        sdk.events(SCOPE)
    assert raised.value.error_code == "ACTOR_MISMATCH"


def test_experience_replays_on_its_identity_and_conflicts_on_another_body(
    client: V1Client, served: DoubleServer
) -> None:
    first = client.experience(
        SCOPE,
        text="prefers short answers",
        labels=["kind:learning"],
        observed_at="2026-03-04T05:06:07Z",
        idempotency_key="sdk-key-1",
        wait="indexed",
        modality="preference_note",  # open-set
        timezone="Asia/Kolkata",
        refers_to=[{"from": "2026-03-01", "zone": "Asia/Kolkata"}],
    )
    assert first["replayed_from_idempotency"] is False
    # Occurrence time and capture hints are outside write identity: a replay.
    again = client.experience(
        SCOPE,
        text="prefers short answers",
        labels=["kind:learning"],
        observed_at="2026-05-06T07:08:09Z",
        idempotency_key="sdk-key-1",
        modality="preference_note",
        refers_to=[{"from": "2026-03-01", "zone": "Asia/Kolkata"}],
    )
    assert again == {**first, "replayed_from_idempotency": True}
    # Anything else in the envelope is identity: the same key with other labels conflicts.
    with pytest.raises(V1APIError) as raised:
        client.experience(
            SCOPE,
            text="prefers short answers",
            labels=["kind:other"],
            idempotency_key="sdk-key-1",
            modality="preference_note",
            refers_to=[{"from": "2026-03-01", "zone": "Asia/Kolkata"}],
        )
    assert (raised.value.status, raised.value.error_code) == (409, "IDEMPOTENCY_CONFLICT")
    assert served.double.tenants[TOKEN].events() == 1


def test_bulk_events_recall_answer_forget_and_erase(client: V1Client, served: DoubleServer) -> None:
    written = client.experience_bulk(
        SCOPE,
        [
            {"text": "likes tea in the morning", "labels": ["tm:t:aa"], "role": "user"},
            {"text": "drinks coffee after lunch", "labels": ["tm:t:bb"], "role": "assistant"},
            {"text": "a document about tea", "scope": OTHER, "modality": "document"},
        ],
        wait="indexed",
    )
    ids = [result["event_id"] for result in written["results"]]
    assert written["accepted"] == 3
    assert len(set(ids)) == 3

    listed = client.events(SCOPE, labels=["tm:t:aa", "tm:t:bb"], limit=10)
    assert {item["content"]["text"] for item in listed["items"]} == {
        "likes tea in the morning",
        "drinks coffee after lunch",
    }

    # The SDK's defaults: view holistic (the scope and its ancestors and
    # descendants), diagnostics none.
    pack = client.recall(
        SCOPE,
        query="tea morning",
        include=["events"],
        budgets={"per_layer_limits": {"events": 5}},
        filters={"metadata": {"labels": ["tm:t:aa"]}},
    )
    assert [event["id"] for event in pack["layers"]["events"]] == [ids[0]]
    granular = client.recall(OTHER, query="tea", view="granular", include=["events"])
    assert [event["id"] for event in granular["layers"]["events"]] == [ids[2]]

    answer = client.answer(
        SCOPE, "What is drunk in the morning?", cite_sources=True, use_pack_id=pack["pack_id"]
    )
    assert "likes tea in the morning" in answer["answer"]

    # Forget: `derived_only` (the SDK's default) and `none` keep the events,
    # `redact_events` removes them; selector + confirm_all is refused before sending.
    for cascade in ("derived_only", "none"):
        kept = client.forget(SCOPE, memory_ids=[ids[1]], cascade=cascade, reason="a test")
        assert kept["deleted"]["events"] == 0
    gone = client.forget(SCOPE, layers=["events"], memory_ids=[ids[1]], cascade="redact_events")
    assert gone["deleted"]["events"] == 1
    with pytest.raises(V1InvalidRequestError):
        client.forget(SCOPE, memory_ids=[ids[0]], confirm_all=True)

    erased = client.erase(OTHER, confirm_all=True, audit_note="a test", idempotency_key="erase-1")
    assert erased["status"] == "completed"
    assert erased["erasure_id"]
    assert client.events(OTHER)["items"] == []
    assert served.double.tenants[TOKEN].events() == 1


def test_an_accepted_erasure_answers_as_the_sdk_describes(
    client: V1Client, served: DoubleServer
) -> None:
    served.double.erasures_accepted = True
    client.experience(SCOPE, text="to be erased", wait="indexed")
    erased = client.erase(SCOPE, confirm_all=True)
    assert erased["status"] == "accepted"
    assert {"erasure_id", "manifest_url", "lifecycle_stream"} <= set(erased)


def test_a_budget_excerpt_is_marked_in_the_content(client: V1Client) -> None:
    text = "prefers the dark colour scheme everywhere, " * 20
    written = client.experience(SCOPE, text=text, wait="indexed")
    pack = client.recall(
        SCOPE, query="dark colour scheme", budgets={"max_tokens": 64}, view="granular"
    )
    (event,) = pack["layers"]["events"]
    content = event["content"]
    assert content["_partial"] is True
    assert content["_partial_reason"] == "budget_excerpt"
    assert content["_original_bytes"] == len(text.encode())
    start, end = content["_excerpt_ranges"][0]
    assert text.encode()[start:end].decode() == content["text"]
    # The whole event is one request away, as the SDK's docstring says.
    whole = client._get(f"/v1/events/{written['event_id']}")
    assert whole["content"]["text"] == text


def test_the_judge_refuses_a_body_the_sdk_would_not_build() -> None:
    judge = JudgingConnection(CortexDouble())
    answer = {"scope": SCOPE, "question": "q", "use_pack_id": "p", "cite_sources": True}
    judge.judge("POST", "v1/answer", {}, json.dumps({**answer, "include_context": True}).encode())
    judge.judge("POST", "v1/scopes", {}, json.dumps({"path": "org:1", "members": []}).encode())
    judge.judge("PUT", "v1/scopes/members", {"path": "org:1"}, b"{}")
    assert len(judge.verdicts) == 3
    sdk_answer = {**answer, "view": "granular", "diagnostics": "none"}
    judge.judge("POST", "v1/answer", {}, json.dumps(sdk_answer).encode())
    assert len(judge.verdicts) == 3
