"""Scrubbing time grows linearly with the text, even for inputs built against careless patterns.

Not a timed assertion against a clock: each input is scrubbed at two sizes,
four times apart, and the larger must take less than ten times the smaller
(linear is four, quadratic sixteen). The best of three CPU-time runs of each
is compared, which a busy machine slows alike. ``benchmarks/scrub_bench.py``
prints the absolute figures at 100 KB.
"""

from __future__ import annotations

import random
import string
import time

import pytest

from tinymemory_safety import SafetyScrubber

SMALL = 12_000
#: Each input as the unit it repeats: runs of digits, of base64, of spaces, of prefixes.
UNITS = {
    "digits": "7",
    "digits and spaces": "1 ",
    "digit groups": "020 7946 ",
    "digits and dashes": "1234-",
    "spaces": " ",
    "a=a=": "a=",
    "key=key=": "key=",
    "Bearer Bearer": "Bearer ",
    "password is": "password is ",
    "password:": "password: ",
    "Authorization:": "Authorization: ",
    "Cookie:": "Cookie: a=",
    "-u a:b": "-u a:b ",
    "call 1": "call 1 ",
    "DOB": "DOB: 1/1/1 ",
    "passport 1": "passport 1 ",
    "NHS number": "NHS number 1 ",
    "1.1.1.1": "1.",
    "1:1:1": "1:",
    "+1 +1": "+1 ",
    "eyJ": "eyJ",
    "Q~": "Q~",
    "a@a@": "a@",
    "hooks": "hooks.slack.com/services/",
    "cards": "4111111111111111 ",
    "BEGIN without END": "-----BEGIN PRIVATE KEY-----\n",
    "://a:b@": "://a:b@",
    "vendor segments": "ab_a1B2c3D4e5",
    "directive lines": "proxy_set_header X-Api-Key a1\n",
    "directive words": "Header set ",
    "name then value": "key: Authorization, value: ",
}
_RANDOM = random.Random(11)
#: Random runs, drawn once: base64 and hex.
RUNS = {
    "base64": "".join(
        _RANDOM.choice(string.ascii_letters + string.digits + "+/") for _ in range(4 * SMALL)
    ),
    "hex": "".join(_RANDOM.choice("0123456789abcdef") for _ in range(4 * SMALL)),
}


def cpu_seconds(scrubber: SafetyScrubber, text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        scrubber.scrub_text(text)
        best = min(best, time.process_time() - start)
    return max(best, 1e-4)  # the clock's grain: a tiny time is no evidence either way


def sized(name: str, size: int) -> str:
    if name in RUNS:
        return RUNS[name][:size]
    unit = UNITS[name]
    return unit * (size // len(unit))


@pytest.mark.parametrize("name", [*UNITS, *RUNS])
def test_time_grows_linearly_with_the_input(name: str) -> None:
    scrubber = SafetyScrubber()
    small = cpu_seconds(scrubber, sized(name, SMALL))
    large = cpu_seconds(scrubber, sized(name, 4 * SMALL))
    assert large < 10 * small, f"{name}: {small:.4f}s at {SMALL}, {large:.4f}s at {4 * SMALL}"
