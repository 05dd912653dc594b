"""No configured secret comes back out of the engine, in any form a server may echo it.

The secrets a cortex engine holds: the key (static, or the tokens a dynamic
source hands out), the values of the host's fixed headers (a gateway's key,
a ``Basic`` credential with its ``user:pass``), and the values of the
endpoint's own query (``?api_key=``). A server quoting a request back may
spell any of them as sent, URL-encoded, JSON-escaped, in another case or in
base64. Whatever it echoes, in whatever status and body dialect, on either
wire, the error's message, ``str`` and ``repr``, the log, the memory tools'
error and the MCP tool result hold none of them. User info in the endpoint
is refused at construction, and so is a fragment, without echoing them.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from echoing import Echoing, failing_list
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import (
    ConfigError,
    EngineCredential,
    EngineSettings,
    Learning,
    ListRequest,
    MemoryTools,
    TinyMemoryError,
    build_engine,
)
from tinymemory_cortex import DIRECT, HOSTED, CortexEngine, Wire
from tinymemory_cortex.testing import (
    MEMORY_ENDPOINT,
    CortexDouble,
    DoubleServer,
    InMemoryConnection,
)

#: The spellings a server may echo: each is checked in any case by `leaked`.
SPELLINGS: dict[str, Callable[[str], str]] = {
    "as sent": lambda secret: secret,
    "url-encoded": lambda secret: quote(secret, safe=""),
    "form-encoded": quote_plus,
    "json-escaped": lambda secret: json.dumps(secret)[1:-1],
    "upper": str.upper,
    "lower": str.lower,
    "swapped": str.swapcase,
    "base64": lambda secret: base64.b64encode(secret.encode()).decode(),
    "base64url": lambda secret: base64.urlsafe_b64encode(secret.encode()).decode().rstrip("="),
}
# Header-safe secrets of a useful length, with the characters that encode differently.
SECRETS = st.text(
    alphabet=st.sampled_from("abcdefXYZ0123456789+/=_-.~%!$&*@:"), min_size=10, max_size=24
)
STATUSES = [400, 401, 402, 403, 404, 409, 413, 422, 429, 500, 502, 503]


def leaked(text: str, secrets: list[str]) -> list[str]:
    """The spellings of ``secrets`` found in ``text``, case-insensitively."""
    lowered = text.lower()
    return [
        f"{name} of {secret!r}"
        for secret in secrets
        for name, spell in SPELLINGS.items()
        if spell(secret).lower() in lowered
    ]


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@settings(max_examples=60, deadline=None)
@given(
    key=SECRETS,
    header=SECRETS,
    user=SECRETS.filter(lambda text: ":" not in text),
    password=SECRETS,
    query=SECRETS,
    status=st.sampled_from(STATUSES),
    dialect=st.sampled_from(["cortexdb", "hosted", "text"]),
    wire=st.sampled_from([DIRECT, HOSTED]),
    spellings=st.lists(st.sampled_from(sorted(SPELLINGS)), min_size=1, max_size=4),
)
def test_no_echoed_secret_reaches_an_error_a_log_or_a_repr(
    key: str,
    header: str,
    user: str,
    password: str,
    query: str,
    status: int,
    dialect: str,
    wire: Wire,
    spellings: list[str],
) -> None:
    secrets = [key, header, user, password, f"{user}:{password}", query]
    echo = " | ".join(
        f"{name}: {SPELLINGS[name](secret)}" for secret in secrets for name in spellings
    )
    engine = CortexEngine(
        f"{MEMORY_ENDPOINT}/?api_key={quote(query, safe='')}",
        EngineCredential.static(key),
        wire=wire,
        headers={"X-Gateway-Key": header, "X-Upstream-Auth": basic(user, password)},
        connection=Echoing(status, echo, dialect),
        backoff=0.0,
    )
    error, health, lines = failing_list(engine)
    shown = [
        error.message,
        str(error),
        repr(error),
        repr(engine),
        repr(engine.transport.redactor),
        str(health.reason),
        *lines,
    ]
    assert not leaked("\n".join(shown), secrets)


def test_a_dynamic_token_is_redacted_in_every_spelling() -> None:
    class Session:
        def __init__(self) -> None:
            self.tokens = iter(f"session-Token/{number}+abc" for number in range(100))

        def bearer(self) -> str:
            return next(self.tokens)

    credential = EngineCredential.dynamic(Session())
    echo = " ".join(spell("session-Token/0+abc") for spell in SPELLINGS.values())
    engine = CortexEngine(
        MEMORY_ENDPOINT, credential, connection=Echoing(400, echo, "cortexdb"), backoff=0.0
    )
    with engine, pytest.raises(TinyMemoryError) as raised:
        engine.list(ListRequest())
    assert not leaked(str(raised.value), ["session-Token/0+abc"])


def test_the_endpoint_query_is_sent_on_every_request_and_the_path_stays_whole() -> None:
    double = CortexDouble()
    engine = CortexEngine(
        f"{MEMORY_ENDPOINT}/?api_key=q-secret-1",
        EngineCredential.static("key-1"),
        connection=InMemoryConnection(double),
        poll_interval=0.005,
        settle_budget=0.1,
    )
    targets: list[str] = []
    handle = double.handle

    def recording(method: str, target: str, headers: Mapping[str, str], body: bytes) -> object:
        targets.append(target)
        return handle(method, target, headers, body)

    double.handle = recording  # type: ignore[method-assign, assignment]
    with engine:
        engine.store(Learning(text="stored through an endpoint with a query"))
        assert [hit.text for hit in engine.list(ListRequest()).items] == [
            "stored through an endpoint with a query"
        ]
    assert targets
    assert all(target.split("?")[1].startswith("api_key=q-secret-1") for target in targets)
    assert all(not target.split("?")[0].endswith(("/", "?")) for target in targets)


@pytest.mark.parametrize(
    ("endpoint", "refusal"),
    [
        ("https://user-x:pass-secret-9@cortex.example", "user info"),
        ("https://cortex.example/#frag-secret-9", "fragment"),
    ],
)
def test_user_info_or_a_fragment_is_refused_without_echo(endpoint: str, refusal: str) -> None:
    for engine_id in ("cortexdb", "tinyhumans"):
        with pytest.raises(ConfigError, match=refusal) as raised:
            build_engine(
                engine_id,
                EngineSettings(endpoint=endpoint),
                EngineCredential.static("key-1"),
                scrub=False,
            )
        assert "secret-9" not in str(raised.value)


def test_the_memory_tools_error_holds_no_secret() -> None:
    echo = " ".join(spell("tool-Key/secret+1") for spell in SPELLINGS.values())
    engine = CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static("tool-Key/secret+1"),
        connection=Echoing(422, echo, "cortexdb"),
    )
    with engine, pytest.raises(TinyMemoryError) as raised:
        MemoryTools(engine).call("memory_list", {})
    assert not leaked(str(raised.value), ["tool-Key/secret+1"])


class EchoingDouble(CortexDouble):
    """The double, but every listing is refused with a message quoting the request's secrets."""

    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes) -> object:  # type: ignore[override]
        if target.startswith("/v1/events"):
            lowered = {name.lower(): value for name, value in headers.items()}
            quoted = [target, *lowered.values()]
            echo = " ".join(spell(text) for text in quoted for spell in SPELLINGS.values())
            from tinymemory_cortex.testing import ApiError

            return ApiError(422, "INVALID_BODY", f"cannot parse {echo}").answer()
        return super().handle(method, target, headers, body)


def test_an_mcp_tool_result_holds_no_secret(tmp_path: Path) -> None:
    """``tinymemory mcp`` on the cortexdb engine, driven by the MCP SDK's client."""
    mcp = pytest.importorskip("mcp", reason="the mcp plugin is not installed here")
    secrets = ["mcp-Key/secret+1", "gw-Secret/value=2", "q-Secret+3"]
    with DoubleServer(EchoingDouble()) as server:
        config = tmp_path / "config.toml"
        config.write_text(
            textwrap.dedent(
                f"""
                engine = "cortexdb"
                [engines.cortexdb]
                endpoint = "{server.url}/?api_key={quote(secrets[2], safe="")}"
                headers = {{ X-Gateway-Key = "{secrets[1]}" }}
                settle_budget = 0.1
                poll_interval = 0.01
                """
            ),
            encoding="utf-8",
        )
        script = textwrap.dedent(
            """
            import sys, anyio
            from mcp import Client
            from mcp.client.stdio import StdioServerParameters, stdio_client

            async def main():
                params = StdioServerParameters(
                    command=sys.argv[1], args=["mcp"], env=dict(__import__("os").environ)
                )
                async with Client(stdio_client(params)) as client:
                    result = await client.call_tool("memory_list", {"limit": 5})
                    print(result.is_error, result.content[0].text)

            anyio.run(main)
            """
        )
        tinymemory = str(Path(sys.executable).parent / "tinymemory")
        env = {
            "HOME": str(tmp_path),
            "XDG_CONFIG_HOME": str(tmp_path / ".config"),
            "XDG_DATA_HOME": str(tmp_path / ".local"),
            "PATH": os.environ.get("PATH", ""),
            "TINYMEMORY_CONFIG": str(config),
            "TINYMEMORY_API_KEY": secrets[0],
        }
        done = subprocess.run(
            [sys.executable, "-c", script, tinymemory],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert mcp is not None
    assert done.stdout.startswith("True "), done.stderr[-2000:]
    assert "INVALID_BODY" in done.stdout or "422" in done.stdout
    assert "***" in done.stdout  # the server's echo reached the tool result, redacted
    assert not leaked(done.stdout + done.stderr, secrets)


def test_a_scheme_word_stays_readable_and_its_credential_does_not() -> None:
    from tinymemory_cortex.secrets import Redactor

    redactor = Redactor([basic("username", "password")])
    shown = redactor.redact("Basic auth refused for USERNAME (cGFzc3dvcmQ=)")
    assert shown == "Basic auth refused for *** (***)"
