"""TinyMemory safety: secrets and personal data scrubbed from every item before store.

Installed, the plugin's scrubber runs on every engine ``tinymemory.build_engine``
hands out. A host may also use it directly::

    from tinymemory_safety import SafetyScrubber
    SafetyScrubber().scrub_text("Authorization: Bearer abc123def456").text
    # 'Authorization: Bearer [REDACTED]'

See docs/safety.md for the detectors, tokens and policy.
"""

from __future__ import annotations

from tinymemory_safety.personal_data import BareCard, IpAddresses
from tinymemory_safety.policy import (
    BARE_CARD_VARIABLE,
    EMAILS_VARIABLE,
    IP_ADDRESSES_VARIABLE,
    PUBLIC_ADDRESSES_VARIABLE,
    REGION_VARIABLE,
    HostPattern,
    Policy,
    installed_policy,
)
from tinymemory_safety.scrubber import Redactions, SafetyScrubber, ScrubbedItem, ScrubbedText

__all__ = [
    "BARE_CARD_VARIABLE",
    "EMAILS_VARIABLE",
    "IP_ADDRESSES_VARIABLE",
    "PUBLIC_ADDRESSES_VARIABLE",
    "REGION_VARIABLE",
    "BareCard",
    "HostPattern",
    "IpAddresses",
    "Policy",
    "Redactions",
    "SafetyScrubber",
    "ScrubbedItem",
    "ScrubbedText",
    "installed_policy",
]
