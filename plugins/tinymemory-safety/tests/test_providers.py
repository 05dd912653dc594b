"""Every format of the provider catalogue, with tokens Hypothesis draws from the format itself.

Each catalogued pattern is a class of tokens: whatever string it matches,
standing as a word in a sentence, must be redacted and counted under its
provider (or a class that wins the overlap, such as ``jwt`` for a Mapbox
``sk.eyJ…`` token). This checks the catalogue against its own formats, and
that the literal pre-check in front of each pattern never rules a match out.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinymemory_safety import SafetyScrubber
from tinymemory_safety.lookalikes import placeholder_value
from tinymemory_safety.providers import _CATALOGUE

SCRUBBER = SafetyScrubber()
#: What surrounds a token: prose, an assignment, a JSON value, a header.
CONTEXTS = ["the token {} was leaked", "KEY={}", '{{"value": "{}"}}', "X-Token: {}"]


@pytest.mark.parametrize(
    ("kind", "pattern"),
    [(kind, pattern) for kind, pattern, _ in _CATALOGUE],
    ids=[f"{kind}-{index}" for index, (kind, _, _) in enumerate(_CATALOGUE)],
)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_catalogued_format_is_redacted_in_context(
    kind: str, pattern: str, data: st.DataObject
) -> None:
    token = data.draw(st.from_regex(re.compile("(?a)" + pattern), fullmatch=True))
    context = data.draw(st.sampled_from(CONTEXTS))
    text = context.format(token)
    result = SCRUBBER.scrub_text(text)
    if "EXAMPLE" in token or placeholder_value(token):
        return  # documented example keys and stand-ins (``ghp_XXXX…``) are left alone by rule
    assert token not in result.text
    assert result.redactions.secrets >= 1
