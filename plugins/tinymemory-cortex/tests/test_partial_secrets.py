"""No secret in part: any run of 8 characters of a configured secret, in any spelling, is out.

A server may quote **part** of what it was sent (the first 11 characters of
the key, the middle of the ``Authorization`` value it could not parse, the
base64 of ``Bearer <key>`` a gateway logged). Whatever part it quotes, in
plain text, URL-encoded, JSON-escaped, in hex or in base64 at any of the
three byte alignments, of the key or of the whole header value, the engine's
error, log and health reason hold no run of 8 characters of it; 7 characters
may stay (the exact boundary is checked first). urllib3's own DEBUG lines,
which carry the endpoint's query, pass through the same redaction.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Callable, Iterator
from urllib.parse import quote, quote_plus

import pytest
from echoing import Echoing, failing_list
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import EngineCredential, ListRequest
from tinymemory_cortex import DIRECT, HOSTED, CortexEngine, Wire
from tinymemory_cortex.secrets import SHORTEST_RUN, Redactor
from tinymemory_cortex.testing import MEMORY_ENDPOINT, CortexDouble, DoubleServer

RUN = SHORTEST_RUN


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


#: How a server may spell what it quotes.
ENCODINGS: dict[str, Callable[[str], str]] = {
    "as sent": lambda text: text,
    "url-encoded": lambda text: quote(text, safe=""),
    "form-encoded": quote_plus,
    "json-escaped": lambda text: json.dumps(text)[1:-1],
    "hex": lambda text: text.encode().hex(),
    "upper": str.upper,
    "base64": b64,
    "base64url": lambda text: base64.urlsafe_b64encode(text.encode()).decode().rstrip("="),
}
KEYS = st.text(
    alphabet=st.sampled_from("abcdefXYZ0123456789+/=_-.~%!$&@:"), min_size=12, max_size=40
)


def runs_of(secret: str) -> set[str]:
    """Every 8-character run of every spelling of ``secret`` (lowercased), at all alignments."""
    raw = secret.encode()
    forms = {encode(secret) for encode in ENCODINGS.values()}
    forms |= {
        encode(raw[start:]).decode().rstrip("=")
        for start in range(3)
        for encode in (base64.b64encode, base64.urlsafe_b64encode)
    }
    return {form[n : n + RUN].lower() for form in forms for n in range(len(form) - RUN + 1)}


def leaks(text: str, secrets: list[str]) -> list[str]:
    lowered = text.lower()
    return sorted(run for secret in secrets for run in runs_of(secret) if run in lowered)


def quoted_part(whole: str, start: int, length: int, encoding: str) -> str:
    """What a server echoes: ``encoding`` of ``whole[start:start+length]``."""
    return ENCODINGS[encoding](whole[start : start + length])


# --- fixed checks first -------------------------------------------------------------------

KEY = "sk-live-0123456789abcdefQRST"


def test_seven_characters_of_a_key_may_stay_and_eight_never_do() -> None:
    redactor = Redactor([KEY])
    seven, eight = KEY[5:12], KEY[5:13]
    assert redactor.redact(f"near {seven} end") == f"near {seven} end"
    assert redactor.redact(f"near {eight} end") == "near *** end"
    assert redactor.redact(f"prefix {KEY[:11]}!") == "prefix ***!"  # the 11-char prefix
    assert redactor.redact(f"suffix {KEY[-8:]}") == "suffix ***"
    assert redactor.redact(f"suffix {KEY[-7:]}") == f"suffix {KEY[-7:]}"


@pytest.mark.parametrize("start", [0, 1, 2, 3, 4, 5])
def test_base64_of_a_part_at_each_alignment_is_out(start: int) -> None:
    # A gateway's log of the whole header value, re-encoded from its own byte offset.
    header = f"Bearer {KEY}"
    echoed = b64(header[start:])
    shown = Redactor([]).redact(f"auth was {echoed}", KEY, header)
    assert not leaks(shown, [KEY, header]), shown


def test_the_base64_of_the_whole_header_value_never_reaches_an_error() -> None:
    # Issue 47: an error body carrying the base64 of `Bearer <key>`.
    for echoed in (b64(f"Bearer {KEY}"), b64(f"Bearer {KEY}").rstrip("="), b64(f"Basic {KEY}")):
        message = failure_message(DIRECT, f"bad header {echoed}")
        assert echoed not in message
        assert not leaks(message, [KEY, f"Bearer {KEY}"]), message


@pytest.mark.parametrize("wire", [DIRECT, HOSTED], ids=["cortexdb", "tinyhumans"])
def test_a_run_that_begins_with_the_space_of_the_header_value_is_out(wire: Wire) -> None:
    # " sk-live": 7 characters of the key after the space of `Bearer <key>`, a run of 8 of
    # the header value; the server's words are redacted before they are trimmed.
    message = failure_message(wire, f" {KEY[:7]}")
    assert not leaks(message, [KEY, f"Bearer {KEY}"]), message


def test_ordinary_words_and_short_ids_stay_readable() -> None:
    redactor = Redactor([KEY, "Basic dXNlcjpodW50ZXIy"])
    text = "scope app:tinymemory/app:learnings refused: Bearer token expired (sk-live)"
    assert redactor.redact(text) == text


# --- the engine's error, log and health, for any part in any spelling -----------------------


def failure_message(wire: Wire, echo: str, key: str = KEY) -> str:
    """Everything an engine shows of a 400 whose body quotes ``echo``: error, health, log."""
    dialect = "hosted" if wire is HOSTED else "cortexdb"
    engine = CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static(key),
        wire=wire,
        connection=Echoing(400, echo, dialect),
        backoff=0.0,
    )
    error, health, lines = failing_list(engine)
    return "\n".join([str(error), repr(error), str(health.reason), *lines])


@settings(max_examples=80, deadline=None)
@given(
    key=KEYS,
    data=st.data(),
    whole=st.sampled_from(["key", "bearer header"]),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    wire=st.sampled_from([DIRECT, HOSTED]),
)
def test_no_run_of_a_secret_in_any_spelling_reaches_the_error(
    key: str, data: st.DataObject, whole: str, encoding: str, wire: Wire
) -> None:
    source = key if whole == "key" else f"Bearer {key}"
    # A prefix, a suffix or a middle: any part at least one run long.
    start = data.draw(st.integers(0, len(source) - RUN), label="start")
    length = data.draw(st.integers(RUN, len(source) - start), label="length")
    echo = quoted_part(source, start, length, encoding)
    before = data.draw(st.text(alphabet="xyz ;:", max_size=6), label="before")
    after = data.draw(st.text(alphabet="xyz ;:", max_size=6), label="after")
    message = failure_message(wire, f"{before}{echo}{after}", key)
    # Base64 of an unaligned part keeps at most its last group (up to 3 characters) readable.
    assert not leaks(message, [key, f"Bearer {key}"]), (echo, message)


# --- the HTTP libraries' own log lines ----------------------------------------------------


@pytest.fixture
def library_records() -> Iterator[list[logging.LogRecord]]:
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append  # type: ignore[method-assign]
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_urllib3_debug_lines_hold_no_query_secret_nor_any_run_of_it(
    library_records: list[logging.LogRecord],
) -> None:
    query_secret = "q-secret-ABCDEFGH12345678"
    with DoubleServer(CortexDouble()) as server:
        engine = CortexEngine(
            f"{server.url}/?api_key={query_secret}",
            EngineCredential.static(KEY),
            backoff=0.0,
        )
        with engine:
            engine.list(ListRequest())
    lines = [record.getMessage() for record in library_records]
    request_lines = [
        line
        for name, line in zip([r.name for r in library_records], lines, strict=True)
        if name.startswith("urllib3") and "GET /" in line
    ]
    assert request_lines, lines  # urllib3 did log its request lines at DEBUG
    assert all("api_key=***" in line for line in request_lines), request_lines
    assert not leaks("\n".join(lines), [query_secret, KEY])
