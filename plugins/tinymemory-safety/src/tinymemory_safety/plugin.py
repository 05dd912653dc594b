"""The plugin's hook: one :class:`SafetyScrubber` for every engine ``build_engine`` makes.

Its policy comes from the environment (``TINYMEMORY_SAFETY_BARE_CARD``,
``TINYMEMORY_SAFETY_EMAILS``), read each time the core collects scrubbers,
so a bad value is a ``ConfigError`` from ``build_engine`` before anything is
stored.
"""

from __future__ import annotations

from tinymemory.plugin import Scrubber, hookimpl
from tinymemory_safety.policy import policy_from_environment
from tinymemory_safety.scrubber import SafetyScrubber


@hookimpl
def tinymemory_scrubbers() -> list[Scrubber]:
    """The safety scrubber, with the environment's policy."""
    return [SafetyScrubber(policy_from_environment())]
