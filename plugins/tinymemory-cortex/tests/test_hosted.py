"""The hosted wire ``tinyhumans`` end to end over loopback HTTP: its double, its faults, its pacing.

Each fault test counts the requests that reached the double and what it
holds afterwards: nothing lost, nothing stored twice.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import responses

from tinymemory import (
    ConfigError,
    Conflict,
    EngineCredential,
    EngineError,
    EngineSettings,
    EraseRequest,
    ForgetTarget,
    GetRequest,
    HealthState,
    Learning,
    ListRequest,
    MemoryMeta,
    Namespace,
    Reach,
    RecallRequest,
    Unauthorized,
    Unavailable,
    Unsupported,
    build_engine,
    list_engines,
)
from tinymemory_cortex import HOSTED, CortexEngine, Pacer
from tinymemory_cortex.testing import (
    MEMORY_ENDPOINT,
    CortexDouble,
    DoubleServer,
    Fault,
    InMemoryConnection,
    ManualClock,
)

TOKEN = "tiny_live_secret-token-0042"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SCOPE = "app:tinymemory/app:learnings"


@pytest.fixture
def served() -> Iterator[DoubleServer]:
    with DoubleServer(CortexDouble({TOKEN: "user:local"})) as server:
        yield server


def hosted(server: DoubleServer, token: str = TOKEN, **options: Any) -> CortexEngine:
    settings: dict[str, Any] = {
        "poll_interval": 0.005,
        "wait_budget": 1.0,
        "settle_budget": 0.2,
        "backoff": 0.005,
    }
    settings.update(options)
    return CortexEngine(server.url, EngineCredential.static(token), wire=HOSTED, **settings)


def hosted_in_memory(
    connection: InMemoryConnection, clock: ManualClock, **options: Any
) -> CortexEngine:
    return CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static(TOKEN),
        wire=HOSTED,
        connection=connection,
        clock=clock,
        rate_window=1.0,
        poll_interval=0.005,
        wait_budget=1.0,
        settle_budget=0.2,
        backoff=0.005,
        **options,
    )


def held(server: DoubleServer) -> int:
    return server.double.tenants[TOKEN].events()


def call(
    double: CortexDouble,
    method: str,
    target: str,
    body: object = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, dict[str, str]]:
    raw = b"" if body is None else json.dumps(body).encode()
    answer = double.handle(method, target, {**AUTH, **(headers or {})}, raw)
    return answer.status, answer.body, dict(answer.headers)


def experience(text: str) -> dict[str, Any]:
    return {
        "scope": SCOPE,
        "modality": "observation",
        "content": {"kind": "message", "role": "user", "text": text},
        "context": {"labels": ["tm:i:0011223344556677"]},
    }


# --- the double's hosted routes -------------------------------------------------------


def test_answers_are_enveloped_and_failures_relayed_with_an_error_code() -> None:
    double = CortexDouble({TOKEN: "user:local"})
    status, body, _ = call(double, "POST", "memory/experience", experience("hello"))
    assert status == 202
    assert body["success"] is True
    assert body["data"]["event_id"].startswith("evt_")
    unknown = {**experience("x"), "surprise": 1}  # CortexDB's 422, relayed as a 400
    status, body, _ = call(double, "POST", "memory/experience", unknown)
    assert (status, body["success"], body["errorCode"]) == (400, False, "BAD_REQUEST")
    assert call(double, "GET", f"memory/scopes?prefix={SCOPE}")[1]["data"]["scopes"] == [
        f"org:t1/{SCOPE}"
    ]


def test_a_claim_answers_409_to_any_later_request_with_its_key_and_applies_nothing() -> None:
    double = CortexDouble({TOKEN: "user:local"})
    claim = {"Idempotency-Key": "tm-claim-1"}
    assert call(double, "POST", "memory/experience", experience("once"), claim)[0] == 202
    status, body, _ = call(double, "POST", "memory/experience", experience("twice"), claim)
    assert (status, body["errorCode"]) == (409, "CONFLICT")
    assert double.tenants[TOKEN].events() == 1
    double.hosted.legacy_conflicts = True
    assert call(double, "POST", "memory/experience", experience("thrice"), claim)[0] == 400
    assert double.tenants[TOKEN].events() == 1


def test_the_backend_429_is_outside_the_envelope_and_leaves_the_claim_free() -> None:
    double = CortexDouble({TOKEN: "user:local"}, hosted_rate_limit=(2, 60.0))
    assert call(double, "GET", f"memory/events?scope={SCOPE}")[0] == 200
    assert call(double, "GET", f"memory/events?scope={SCOPE}")[0] == 200
    claim = {"Idempotency-Key": "tm-claim-2"}
    status, body, headers = call(double, "POST", "memory/experience", experience("x"), claim)
    assert status == 429
    assert body == {"error": {"message": "Too many requests", "type": "rate_limit_error"}}
    assert 1 <= int(headers["Retry-After"]) <= 60
    double.hosted.rate_limit = None
    assert call(double, "POST", "memory/experience", experience("x"), claim)[0] == 202


@pytest.mark.parametrize(
    ("method", "target", "body", "status", "code"),
    [
        ("GET", "memory/events?scope=" + "/".join(["app:a"] * 32), None, 400, "BAD_REQUEST"),
        ("GET", "memory/scopes?prefix=probe", None, 400, "BAD_REQUEST"),
        ("GET", f"memory/events?scope={SCOPE}&labels=a&labels=b", None, 400, "VALIDATION_ERROR"),
        ("POST", "memory/experience?wait=indexed", experience("x"), 400, "VALIDATION_ERROR"),
        ("POST", "memory/experience/bulk", {"items": [experience("x")]}, 404, "NOT_FOUND"),
        (
            "POST",
            "memory/answer",
            {"scope": SCOPE, "question": "q", "use_pack_id": "p", "answer_instructions": None},
            400,
            "VALIDATION_ERROR",
        ),
        ("POST", "memory/answer", {"scope": SCOPE, "view": "granular"}, 400, "VALIDATION_ERROR"),
    ],
)
def test_the_hosted_grammar_and_schemas_refuse(
    method: str, target: str, body: object, status: int, code: str
) -> None:
    answer = call(CortexDouble(), method, target, body)
    assert (answer[0], answer[1]["errorCode"]) == (status, code)


def test_the_erasure_passthrough_answers_bare() -> None:
    double = CortexDouble({TOKEN: "user:local"})
    call(double, "POST", "memory/experience", experience("doomed"))
    status, body, _ = call(double, "POST", "memory/v1/erasures", {"scope": SCOPE})
    assert status == 200
    assert body["erased"] is True
    assert body["scopes"] == 1
    status, body, _ = call(double, "POST", "memory/v1/erasures", {"scope": SCOPE, "x": 1})
    assert (status, body["error_code"]) == (400, "UNKNOWN_FIELD")
    assert call(double, "POST", "memory/v1/erasures", {"scope": "/"})[0] == 422


# --- the engine on the hosted wire ----------------------------------------------------


def test_store_many_of_100_costs_104_requests_each_write_its_own_claim(
    served: DoubleServer,
) -> None:
    with hosted(served) as engine:
        receipts = engine.store_many(Learning(text=f"note {n}") for n in range(100))
    double = served.double
    assert not any(receipt.replayed for receipt in receipts)
    # Two id lookups (50 labels each), 100 single writes, one listing wait, one settle probe.
    assert len(double.requests) == 104
    assert double.count("memory/events") == 3
    assert double.count("memory/experience") == 100
    assert double.count("memory/recall") == 1
    claims = double.hosted.claims
    assert [route for route, _ in claims] == ["memory/experience"] * 100
    assert len({key for _, key in claims}) == 100
    assert double.hosted.keys_sent == claims  # no key on a listing or a recall
    assert held(served) == 100


def test_recall_forget_erase_and_health_speak_the_hosted_routes(served: DoubleServer) -> None:
    with hosted(served) as engine:
        kept = engine.store(Learning(text="prefers short answers"))
        gone = engine.store(Learning(text="an agent's note", meta=_at("agent:planner")))
        answer = engine.recall(RecallRequest(question="short answers"))  # no null instructions
        assert answer.answer == "From memory: prefers short answers"
        assert engine.forget(ForgetTarget.by_ids([kept.id])).forgotten == 1
        report = engine.erase(EraseRequest(reach=Reach.subtree(Namespace.parse("agent:planner"))))
        assert report.erased_scopes == 1
        assert len(report.receipts) == 1
        assert engine.get(GetRequest(ids=[gone.id])) == []
        assert engine.health().state is HealthState.OK
        engine.store(Learning(text="one more"))
        whole = engine.erase(EraseRequest(reach=Reach.subtree(Namespace.ROOT), whole_tree=True))
        assert whole.erased_scopes == 1
        assert whole.receipts == ()
    double = served.double
    assert double.count("memory", "DELETE") == 1
    routes = {route for route, _ in double.hosted.claims}
    assert routes == {"memory/experience", "memory/answer", "memory/forget", "memory/v1/erasures"}
    assert "v1/auth/whoami" not in {route for _, route in double.requests}
    assert held(served) == 0


def _at(node: str) -> MemoryMeta:
    return MemoryMeta(namespace=Namespace.parse(node))


def test_health_probes_the_scopes_route(served: DoubleServer) -> None:
    with hosted(served) as engine:
        assert engine.health().state is HealthState.OK
        served.double.inject(Fault("memory/scopes", status=503))
        degraded = engine.health()
        assert degraded.state is HealthState.DEGRADED
        assert degraded.reason is not None
        assert "[UPSTREAM_UNAVAILABLE]" in degraded.reason
    assert served.double.count("memory/scopes") == 2
    with hosted(served, "tiny_live_wrong") as engine:
        assert engine.health().state is HealthState.DOWN


def test_a_hosted_failure_reads_as_its_code_and_never_shows_the_token(
    served: DoubleServer,
) -> None:
    with hosted(served, "tiny_live_wrong-token-0099") as engine:
        with pytest.raises(Unauthorized) as raised:
            engine.list(ListRequest())
        assert raised.value.message.startswith("[UNAUTHORIZED] memory API memory/")
        assert "re-authenticate" in raised.value.message
        assert "wrong-token" not in str(raised.value)
    with hosted(served) as engine:
        served.double.inject(Fault("memory/events", status=402, code="USER_INSUFFICIENT_CREDITS"))
        with pytest.raises(EngineError, match=r"^engine error: \[USER_INSUFFICIENT_CREDITS\]"):
            engine.list(ListRequest())


@responses.activate
def test_an_answer_outside_the_envelope_is_an_engine_error() -> None:
    endpoint = "https://hosted.double.invalid"
    responses.add(responses.GET, f"{endpoint}/memory/scopes", json={"scopes": []})
    engine = CortexEngine(endpoint, EngineCredential.static(TOKEN), wire=HOSTED)
    with engine:
        health = engine.health()
    assert health.state is HealthState.DOWN
    assert health.reason is not None
    assert "outside the {success, data} envelope" in health.reason


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (EngineSettings(scope_root="org:42"), "legacy layout"),
        (EngineSettings(tenant_root="org:42"), "legacy layout"),
        (EngineSettings(options={"scope_owner": "user:42"}), "no option `scope_owner`"),
        (EngineSettings(options={"rate_limit": 0}), "`rate_limit` must be a whole number"),
    ],
)
def test_bad_hosted_settings_are_config_errors(settings: EngineSettings, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_engine("tinyhumans", settings, EngineCredential.static(TOKEN))


# --- faults ------------------------------------------------------------------------------


def test_a_lost_answer_is_retried_under_its_claim_and_recovered_from_the_409(
    served: DoubleServer,
) -> None:
    with hosted(served) as engine:
        served.double.inject(Fault("memory/experience", drop=True, after_apply=True))
        receipt = engine.store(Learning(text="landed, answer lost"))
        assert not receipt.replayed
        assert [hit.id for hit in engine.list(ListRequest()).items] == [receipt.id]
    assert held(served) == 1
    assert served.double.count("memory/experience") == 2
    assert len({key for _, key in served.double.hosted.claims}) == 1  # one claim, two attempts


@pytest.mark.parametrize("legacy", [False, True])
def test_a_503_after_the_write_landed_is_recovered(served: DoubleServer, legacy: bool) -> None:
    served.double.hosted.legacy_conflicts = legacy  # older backends relay the conflict as 400
    with hosted(served) as engine:
        served.double.inject(Fault("memory/experience", status=503, after_apply=True))
        engine.store(Learning(text="applied, then 503"))
    assert held(served) == 1


def test_a_409_on_the_first_attempt_is_a_conflict(served: DoubleServer) -> None:
    with hosted(served) as engine:
        served.double.inject(Fault("memory/experience", status=409))
        with pytest.raises(Conflict, match=r"\[CONFLICT\]"):
            engine.store(Learning(text="refused"))
    assert held(served) == 0


def test_a_claimed_write_that_never_landed_is_unknown_then_stored_once(
    served: DoubleServer,
) -> None:
    with hosted(served, wait_budget=0.3) as engine:
        served.double.inject(Fault("memory/experience", status=502, claimed=True))
        with pytest.raises(Unavailable, match="outcome is unknown"):
            engine.store(Learning(text="claimed, not applied"))
        assert held(served) == 0
        engine.store(Learning(text="claimed, not applied"))
    assert held(served) == 1


@pytest.mark.parametrize(
    "fault",
    [
        Fault("memory/experience", status=429),
        Fault("memory/experience", status=503),
        Fault("memory/experience", drop=True),
    ],
    ids=["429-without-retry-after", "503", "dropped"],
)
def test_a_refused_write_is_sent_again_and_stored_once(served: DoubleServer, fault: Fault) -> None:
    with hosted(served) as engine:
        served.double.inject(fault)
        engine.store(Learning(text="second time lucky"))
    assert held(served) == 1
    assert served.double.count("memory/experience") == 2


def test_a_429_with_retry_after_holds_the_engine(served: DoubleServer) -> None:
    clock = ManualClock()
    with hosted(served, clock=clock) as engine:
        served.double.inject(Fault("memory/experience", status=429, retry_after=1))
        engine.store(Learning(text="after the pause"))
        assert clock.now() >= 1.0
    assert held(served) == 1


def test_a_forget_is_retried_with_a_new_claim_and_a_404_on_a_retry_is_done(
    served: DoubleServer,
) -> None:
    with hosted(served) as engine:
        first = engine.store(Learning(text="forget me"))
        second = engine.store(Learning(text="forget me too"))
        served.double.inject(Fault("memory/forget", status=503))
        assert engine.forget(ForgetTarget.by_ids([first.id])).forgotten == 1
        served.double.inject(Fault("memory/forget", status=503))
        served.double.inject(Fault("memory/forget", status=404))
        assert engine.forget(ForgetTarget.by_ids([second.id])).forgotten == 1
    forgets = [key for route, key in served.double.hosted.keys_sent if route == "memory/forget"]
    assert len(forgets) == len(set(forgets)) == 4  # 503 then done; 503 then 404 (done)


def test_an_incomplete_erasure_is_retried_and_a_missing_route_is_unsupported(
    served: DoubleServer,
) -> None:
    everything = EraseRequest(reach=Reach.subtree(Namespace.ROOT), whole_tree=True)
    with hosted(served) as engine:
        engine.store(Learning(text="erase me", meta=_at("agent:a")))
        reach = EraseRequest(reach=Reach.subtree(Namespace.parse("agent:a")))
        incomplete = Fault("memory/v1/erasures", status=502, code="ERASURE_INCOMPLETE", times=2)
        served.double.inject(incomplete)
        assert engine.erase(reach).erased_scopes == 1
        engine.store(Learning(text="erase me", meta=_at("agent:a")))
        served.double.inject(Fault("memory/v1/erasures", status=404))
        with pytest.raises(Unsupported):
            engine.erase(reach)
        served.double.inject(Fault("memory", status=404))
        with pytest.raises(Unsupported):
            engine.erase(everything)
    assert held(served) == 1


# --- pacing under the rate limit ----------------------------------------------------------


def test_the_engine_paces_itself_under_the_limit_and_the_double_is_never_refused() -> None:
    # The real shape (requests per sliding window), scaled from 300 a minute to 20 a second,
    # on one clock the engine's pacer and the double's limiter share: no wall-clock pacing.
    clock = ManualClock()
    double = CortexDouble({TOKEN: "user:local"}, hosted_rate_limit=(20, 1.0), clock=clock)
    served = InMemoryConnection(double)
    with hosted_in_memory(served, clock, rate_limit=20) as engine:
        engine.store_many(Learning(text=f"paced {n}") for n in range(45))
        assert engine.transport.pacer is not None
        waited = engine.transport.pacer.waited
    assert len(double.requests) >= 48  # 1 lookup, 45 writes, 1 wait, probes
    assert double.hosted.rate_limited == 0
    assert waited >= 2.0  # 48 requests at 20 a second: two full windows waited out
    assert clock.now() >= 2.0
    # The control: an engine allowed more than the double takes is refused once; the
    # refusal's Retry-After then holds it until the window has room.
    refused = 0
    with hosted_in_memory(served, clock, rate_limit=1000) as engine:
        for _ in range(25):
            try:
                engine.transport.get("events", {"scope": SCOPE}, retry=False)
            except Unavailable:
                refused += 1
    assert refused == 1
    assert double.hosted.rate_limited == refused


def test_a_pacer_lets_at_most_its_limit_through_any_window() -> None:
    clock = ManualClock()
    pacer = Pacer(3, 0.2, clock)
    sent = []
    for _ in range(7):
        pacer.take()
        sent.append(clock.now())
    window = 0.2 * 1.1  # the pacer's margin over the service's window
    assert sent[:3] == [0.0, 0.0, 0.0]
    assert sent[6] - sent[0] == pytest.approx(2 * window)
    assert all(sent[n + 3] - sent[n] >= window - 1e-9 for n in range(4))
    assert pacer.waited == pytest.approx(2 * window)
    with pytest.raises(ValueError, match="a limit of at least 1"):
        Pacer(0)


def test_the_registry_and_the_cli_list_both_wires_with_their_descriptors() -> None:
    listed = {descriptor.id: descriptor for descriptor in list_engines()}
    assert listed["tinyhumans"].default_endpoint == "https://api.tinyhumans.ai"
    assert listed["tinyhumans"].label == "TinyHumans (hosted CortexDB)"
    assert listed["cortexdb"].default_endpoint == "https://api-v1.cortexdb.ai"
    engine = CortexEngine("https://api.tinyhumans.ai", EngineCredential.static(TOKEN), wire=HOSTED)
    with engine:
        assert engine.descriptor is listed["tinyhumans"]
    command = str(Path(sys.executable).parent / "tinymemory")  # the installed console script
    shown = subprocess.run([command, "engines"], capture_output=True, text=True, check=True).stdout
    assert "tinyhumans  TinyHumans (hosted CortexDB)" in shown
