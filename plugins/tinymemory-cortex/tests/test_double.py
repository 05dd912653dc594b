"""The CortexDB double behaves as the wire reference's §4 and §12 say, over HTTP and in-process."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, quote_plus

import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st

from tinymemory_cortex.connection import Request
from tinymemory_cortex.testing import (
    MEMORY_ENDPOINT,
    CortexDouble,
    DoubleServer,
    InMemoryConnection,
)
from tinymemory_cortex.testing.double import query_values

AUTH = {"Authorization": "Bearer key-a"}
SCOPE = "app:tinymemory/app:learnings"


def experience(text: str, labels: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "scope": SCOPE,
        "modality": "observation",
        "content": {"kind": "message", "role": "user", "text": text},
        "context": {"labels": labels or []},
    }
    body.update(extra)
    return body


def call(
    double: CortexDouble,
    method: str,
    target: str,
    body: object = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    raw = b"" if body is None else json.dumps(body).encode()
    answer = double.handle(method, target, AUTH if headers is None else headers, raw)
    return answer.status, answer.body


def test_listing_is_newest_first_and_emits_every_event_twice_when_asked_to() -> None:
    double = CortexDouble(listing_copies=2)  # as the wire reference measured live (§4.2)
    ids = [
        call(double, "POST", "v1/experience", experience(f"note {n}"))[1]["event_id"]
        for n in range(3)
    ]
    status, page = call(double, "GET", f"v1/events?scope={SCOPE}&limit=4")
    assert status == 200
    assert [item["id"] for item in page["items"]] == [ids[2], ids[2], ids[1], ids[1]]
    assert page["has_more"] is True
    assert page["next_cursor"] == "4"
    _, rest = call(double, "GET", f"v1/events?scope={SCOPE}&limit=4&cursor=4")
    assert [item["id"] for item in rest["items"]] == [ids[0], ids[0]]
    assert rest["has_more"] is False
    assert all("recorded_at" in item["context"] for item in rest["items"])


def test_labels_match_any_of_and_at_most_50() -> None:
    double = CortexDouble()
    call(double, "POST", "v1/experience", experience("a", ["x:1"]))
    call(double, "POST", "v1/experience", experience("b", ["x:2"]))
    call(double, "POST", "v1/experience", experience("c", ["x:3"]))
    _, page = call(double, "GET", f"v1/events?scope={SCOPE}&labels=x:1,x:3")
    assert [item["content"]["text"] for item in page["items"]] == ["c", "a"]
    many = ",".join(f"l:{n}" for n in range(51))
    status, body = call(double, "GET", f"v1/events?scope={SCOPE}&labels={many}")
    assert (status, body["error_code"]) == (422, "INVALID_BODY")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (experience("x", unknown=1), "INVALID_BODY"),
        (
            experience("x")
            | {"content": {"kind": "message", "role": "user", "text": "x", "extra": 1}},
            "INVALID_BODY",
        ),
        (experience(""), "INVALID_BODY"),
        (experience("x") | {"scope": "tm:tinymemory/app:learnings"}, "UNREGISTERED_SCOPE_TYPE"),
        (experience("x") | {"scope": "app:tinymemory//app:learnings"}, "INVALID_SCOPE_GRAMMAR"),
        (experience("x" * (1024 * 1024)), "INVALID_ENVELOPE"),
        (experience("x", ["l" * 257]), "INVALID_BODY"),
    ],
    ids=[
        "unknown key",
        "unknown content key",
        "no text",
        "private type",
        "empty segment",
        "over 1 MiB",
        "long label",
    ],
)
def test_bodies_are_strict(body: dict[str, Any], code: str) -> None:
    double = CortexDouble()
    status, answer = call(double, "POST", "v1/experience", body)
    assert (status, answer["error_code"]) == (422, code)
    assert double.tenants["key-a"].events() == 0


def test_a_text_at_the_limit_counting_the_role_marker_is_taken() -> None:
    double = CortexDouble()
    status, _ = call(
        double, "POST", "v1/experience", experience("x" * (1024 * 1024 - len("[user] ")))
    )
    assert status == 202


def test_write_keys_replay_and_conflict_and_forget_by_id_releases_them() -> None:
    double = CortexDouble()
    status, first = call(double, "POST", "v1/experience", experience("a", idempotency_key="k1"))
    assert (status, first["replayed_from_idempotency"]) == (202, False)
    _, again = call(double, "POST", "v1/experience", experience("a", idempotency_key="k1"))
    assert again == {**first, "replayed_from_idempotency": True}
    status, body = call(double, "POST", "v1/experience", experience("b", idempotency_key="k1"))
    assert (status, body["error_code"]) == (409, "IDEMPOTENCY_CONFLICT")
    forget = {
        "scope": SCOPE,
        "selector": {"memory_ids": [first["event_id"]]},
        "cascade": "redact_events",
    }
    assert call(double, "POST", "v1/forget", forget)[1]["deleted"] == {"events": 1}
    _, fresh = call(double, "POST", "v1/experience", experience("a", idempotency_key="k1"))
    assert fresh["replayed_from_idempotency"] is False
    assert fresh["event_id"] != first["event_id"]


def test_forget_rules() -> None:
    double = CortexDouble()
    event = call(double, "POST", "v1/experience", experience("a"))[1]["event_id"]
    selector = {"memory_ids": [event]}
    status, body = call(double, "POST", "v1/forget", {"scope": SCOPE})
    assert (status, body["error_code"]) == (422, "EMPTY_SELECTOR_WITHOUT_CONFIRMATION")
    status, body = call(
        double, "POST", "v1/forget", {"scope": SCOPE, "selector": selector, "confirm_all": True}
    )
    assert (status, body["error_code"]) == (400, "AMBIGUOUS_SELECTOR_CONFIRM_ALL")
    status, body = call(
        double, "POST", "v1/forget", {"scope": SCOPE, "selector": selector, "cascade": "all"}
    )
    assert (status, body["error_code"]) == (400, "INVALID_CASCADE")
    # Without a cascade only what was derived goes; the event stays.
    assert call(double, "POST", "v1/forget", {"scope": SCOPE, "selector": selector})[1][
        "deleted"
    ] == {"events": 0}
    assert double.tenants["key-a"].events() == 1


def test_tokens_are_tenants_and_the_actor_must_match() -> None:
    double = CortexDouble({"key-a": "user:a", "key-b": "user:b"})
    call(double, "POST", "v1/experience", experience("mine"))
    _, page = call(
        double, "GET", f"v1/events?scope={SCOPE}", headers={"Authorization": "Bearer key-b"}
    )
    assert page["items"] == []
    assert call(double, "GET", "v1/auth/whoami")[1] == {"caller": "user:a"}
    status, body = call(
        double, "GET", "v1/admin/version", headers={**AUTH, "X-Cortex-Actor": "user:b"}
    )
    assert (status, body["error_code"]) == (401, "ACTOR_MISMATCH")
    status, body = call(
        double, "GET", "v1/admin/version", headers={"Authorization": "Bearer other"}
    )
    assert (status, body["error_code"]) == (401, "INVALID_TOKEN_SIGNATURE")
    status, body = call(double, "GET", "v1/admin/version", headers={})
    assert (status, body["error_code"]) == (401, "MISSING_TOKEN")


def test_the_probes_answer_without_a_bearer_and_everything_else_needs_one() -> None:
    # cortexdb-cli 0.6 (onboarding.py) probes GET /v1/admin/health unauthenticated, then
    # /v1/admin/ready; the vendor's preflight fails on a 401 there.
    double = CortexDouble({"key-a": "user:a"})
    assert call(double, "GET", "v1/admin/health", headers={}) == (200, {"status": "healthy"})
    status, ready = call(double, "GET", "v1/admin/ready", headers={})
    assert (status, ready["ready"], ready["checks"]) == (200, True, {"storage": {"ok": True}})
    assert call(double, "GET", "v1/admin/version", headers={})[0] == 401


def test_erasure_deletes_the_scope_and_redacts_below_it() -> None:
    double = CortexDouble()
    call(double, "POST", "v1/experience", experience("top") | {"scope": "app:tinymemory/agent:a"})
    call(
        double,
        "POST",
        "v1/experience",
        experience("below") | {"scope": "app:tinymemory/agent:a/app:learnings"},
    )
    status, body = call(double, "POST", "v1/erasures", {"scope": "app:tinymemory/agent:a"})
    assert (status, body["error_code"]) == (422, "AMBIGUOUS_SELECTOR")
    status, body = call(
        double, "POST", "v1/erasures", {"scope": "app:tinymemory/agent:a", "confirm_all": True}
    )
    assert status == 202
    assert body["status"] == "completed"
    assert call(double, "GET", f"v1/erasures/{body['erasure_id']}")[1]["status"] == "completed"
    assert double.tenants["key-a"].events() == 0
    assert call(double, "GET", "v1/scopes/list?prefix=app:tinymemory")[1] == {"items": []}


def test_scope_listing_matches_whole_segments_and_refuses_a_trailing_slash() -> None:
    double = CortexDouble()
    for scope in ("user:ann/app:learnings", "user:anna/app:learnings"):
        call(double, "POST", "v1/experience", experience("x") | {"scope": scope})
    _, listed = call(double, "GET", "v1/scopes/list?prefix=user:ann")
    assert listed == {"items": [{"path": "user:ann/app:learnings"}]}
    status, _ = call(double, "GET", "v1/scopes/list?prefix=user:ann/")
    assert status == 422


def test_recall_is_exact_ranked_and_packs_feed_answers() -> None:
    double = CortexDouble()
    call(double, "POST", "v1/experience", experience("harbour cranes inspected"))
    call(double, "POST", "v1/experience", experience("unrelated"))
    call(
        double,
        "POST",
        "v1/experience",
        experience("cranes elsewhere") | {"scope": "app:tinymemory/agent:a/app:learnings"},
    )
    body = {"scope": SCOPE, "query": "harbour cranes", "view": "granular", "include": ["events"]}
    status, pack = call(double, "POST", "v1/recall", body)
    assert status == 200
    assert [event["content"]["text"] for event in pack["layers"]["events"]] == [
        "harbour cranes inspected"
    ]
    status, bad = call(double, "POST", "v1/recall", body | {"mode": "vector"})
    assert (status, bad["error_code"]) == (422, "INVALID_BODY")
    question = {"scope": SCOPE, "question": "cranes?", "use_pack_id": pack["pack_id"]}
    status, answer = call(double, "POST", "v1/answer", question)
    assert status == 200
    assert "harbour cranes" in answer["answer"]
    status, _ = call(
        double, "POST", "v1/answer", question | {"scope": "app:tinymemory/app:documents"}
    )
    assert status == 400
    status, _ = call(double, "POST", "v1/answer", question | {"use_pack_id": "pack_gone"})
    assert status == 404


def test_the_server_and_the_memory_connection_serve_the_same_double() -> None:
    body = json.dumps(experience("over the wire")).encode()
    headers = {**AUTH, "Content-Type": "application/json"}
    with DoubleServer() as server:
        answer = requests.post(f"{server.url}/v1/experience", data=body, headers=headers, timeout=5)
        assert answer.status_code == 202
        listed = requests.get(
            f"{server.url}/v1/events", params={"scope": SCOPE}, headers=AUTH, timeout=5
        )
        assert [item["content"]["text"] for item in listed.json()["items"]] == ["over the wire"]
    double = CortexDouble()
    request = Request("POST", f"{MEMORY_ENDPOINT}/v1/experience", headers, body, (5.0, 5.0))
    reply = InMemoryConnection(double).exchange(request)
    assert reply.status == 202
    assert double.count("v1/experience") == 1


@given(st.lists(st.tuples(st.text(min_size=1), st.text()), max_size=6))
def test_the_double_reads_a_query_as_parse_qs_does(pairs: list[tuple[str, str]]) -> None:
    query = "&".join(f"{quote_plus(name)}={quote_plus(value)}" for name, value in pairs)
    assert query_values(query) == parse_qs(query)
