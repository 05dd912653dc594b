"""What a host may choose: the bare-card rule, emails, and patterns of its own.

A host building its own engine passes a :class:`Policy` to
:class:`~tinymemory_safety.SafetyScrubber`; the installed plugin reads one
from the configuration file's ``[plugins.safety]`` table and the environment
(:func:`installed_policy`). A bad choice is a
``ConfigError`` when the policy is made, before anything is scrubbed.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import attrs

import tinymemory as tm
from tinymemory_safety.credentials import PRIVATE_KEY_TOKEN, REDACTED
from tinymemory_safety.personal_data import CLASSES, BareCard, IpAddresses, token
from tinymemory_safety.phones import default_region
from tinymemory_safety.providers import PROVIDER_CLASSES

#: ``luhn-only`` or ``corroborated``: the installed plugin's ``Policy.bare_card``.
BARE_CARD_VARIABLE = "TINYMEMORY_SAFETY_BARE_CARD"
#: ``redact`` (default) or ``keep``: whether the installed plugin redacts email addresses.
EMAILS_VARIABLE = "TINYMEMORY_SAFETY_EMAILS"
#: The region national phone numbers are read in (``US``, ``GB``...).
REGION_VARIABLE = "TINYMEMORY_SAFETY_REGION"
#: ``public`` (default), ``all`` or ``keep``: which IP addresses are personal data.
IP_ADDRESSES_VARIABLE = "TINYMEMORY_SAFETY_IP_ADDRESSES"
#: ``keep`` (default) or ``redact``: role mailboxes and addresses in licence notices.
PUBLIC_ADDRESSES_VARIABLE = "TINYMEMORY_SAFETY_PUBLIC_ADDRESSES"
#: Every variable that overrides the configuration file's ``[plugins.safety]``.
SAFETY_VARIABLES = (
    BARE_CARD_VARIABLE,
    EMAILS_VARIABLE,
    REGION_VARIABLE,
    IP_ADDRESSES_VARIABLE,
    PUBLIC_ADDRESSES_VARIABLE,
)

#: The classes the built-in detectors count under; a host pattern takes another name.
BUILTIN_CLASSES = frozenset(
    {
        "private_key", "bearer", "secret_path", "jwt", "telegram", "api_key",
        "secret_assignment", "auth_header", "url_password", "oauth_param", "cli_password",
        "netrc", "pgpass", "stated_secret", "table_column", "kubernetes_secret",
        "basic_credentials", "credential_directive", *PROVIDER_CLASSES, *CLASSES,
    }
)  # fmt: skip
#: Every token the built-in detectors write.
BUILTIN_TOKENS = frozenset({REDACTED, PRIVATE_KEY_TOKEN, *(token(kind) for kind in CLASSES)})
E = TypeVar("E", bound=enum.Enum)
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _compiled(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    if isinstance(pattern, re.Pattern):
        if not isinstance(pattern.pattern, str):
            raise tm.ConfigError("a host pattern must be a text pattern, not bytes")
        return pattern
    if not isinstance(pattern, str):
        raise tm.ConfigError("a host pattern is a regular expression (str or re.Pattern)")
    try:
        return re.compile(pattern)
    except re.error as error:
        raise tm.ConfigError(f"a host pattern does not compile: {error}") from None


@attrs.frozen
class HostPattern:
    """A pattern of the host's own, redacted like a built-in secret.

    ``name`` is the class it is counted under (lowercase, not a built-in
    class). A match is replaced whole by ``token``; if the pattern has a
    group named ``secret``, only that group is (so ``EMP-(?P<secret>\\d{6})``
    keeps ``EMP-``). The pattern runs over the folded text (zero-width
    characters removed, fullwidth digits as ASCII), after the built-in
    secret detectors and before personal data; its speed is the host's to
    keep linear.
    """

    name: str
    #: Left out of the repr: a host may write a literal secret into its pattern.
    pattern: re.Pattern[str] = attrs.field(converter=_compiled, repr=False)
    token: str = "[REDACTED]"

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise tm.ConfigError(
                "a host pattern's name is 1-40 lowercase letters, digits or `_`, "
                "starting with a letter"
            )
        if self.name in BUILTIN_CLASSES:
            raise tm.ConfigError(f"`{self.name}` is a built-in class; name the pattern otherwise")
        if not isinstance(self.token, str) or not self.token:
            raise tm.ConfigError(f"host pattern `{self.name}`: the token must be a non-empty str")
        if self.pattern.search(""):
            raise tm.ConfigError(f"host pattern `{self.name}` matches empty text")
        if self.pattern.search(self.token):
            # A second pass would find the token and redact it again, forever.
            raise tm.ConfigError(f"host pattern `{self.name}` matches its own token")


def _choice(kind: type[E], field: str, value: E | str) -> E:
    """``value`` as one of ``kind``'s members (it may be the member's string)."""
    if isinstance(value, kind):
        return value
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(str(choice.value) for choice in kind)
        raise tm.ConfigError(f"{field} must be one of {choices}, not `{value}`") from None


def _bare_card(value: BareCard | str) -> BareCard:
    return _choice(BareCard, "bare_card", value)


def _ip_addresses(value: IpAddresses | str) -> IpAddresses:
    return _choice(IpAddresses, "ip_addresses", value)


def _region(value: str) -> str:
    try:
        return default_region(value) if isinstance(value, str) else default_region("")
    except ValueError:
        raise tm.ConfigError(
            f"default_region must be a region code such as US, GB or DE, not `{value}`"
        ) from None


def _patterns(value: Sequence[HostPattern]) -> tuple[HostPattern, ...]:
    patterns = tuple(value)
    for pattern in patterns:
        if not isinstance(pattern, HostPattern):
            raise tm.ConfigError("patterns must be HostPattern values")
    names = [pattern.name for pattern in patterns]
    if len(set(names)) != len(names):
        raise tm.ConfigError("two host patterns have one name")
    tokens = {pattern.token for pattern in patterns} | BUILTIN_TOKENS
    for pattern in patterns:
        for written in sorted(tokens):
            if pattern.pattern.search(written):
                # It would redact a redaction, and a second scrub would change the text.
                raise tm.ConfigError(f"host pattern `{pattern.name}` matches the token {written}")
    return patterns


def _flag(field: str) -> Any:
    def check(_: object, __: object, value: object) -> None:
        if not isinstance(value, bool):
            raise tm.ConfigError(f"{field} must be true or false")

    return check


@attrs.frozen
class Policy:
    """How :class:`~tinymemory_safety.SafetyScrubber` scrubs.

    ``bare_card``: which unformatted digit runs are card numbers (see
    :class:`BareCard`; a string ``"luhn-only"``/``"corroborated"`` is
    accepted). ``redact_emails``: whether email addresses become
    ``[REDACTED_PII_EMAIL]``. ``keep_public_addresses``: whether an
    organisation's role mailbox (``security@``, ``support@``, ``noreply@``…)
    and an address in a copyright or licence notice stay (the default) or
    are redacted like any address. ``patterns``: the host's own
    :class:`HostPattern` values.
    """

    bare_card: BareCard = attrs.field(default=BareCard.LUHN_ONLY, converter=_bare_card)
    redact_emails: bool = attrs.field(default=True, validator=_flag("redact_emails"))
    default_region: str = attrs.field(default="US", converter=_region)
    ip_addresses: IpAddresses = attrs.field(default=IpAddresses.PUBLIC, converter=_ip_addresses)
    patterns: tuple[HostPattern, ...] = attrs.field(default=(), converter=_patterns)
    keep_public_addresses: bool = attrs.field(
        default=True, validator=_flag("keep_public_addresses")
    )


#: The keys of ``[plugins.safety]`` in the configuration file.
SETTINGS_KEYS = (
    "bare_card",
    "redact_emails",
    "default_region",
    "ip_addresses",
    "patterns",
    "keep_public_addresses",
)


def installed_policy(
    settings: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> Policy:
    """The installed plugin's policy: the file's ``[plugins.safety]``, then the environment.

    ``settings`` is that table (``bare_card``, ``redact_emails``,
    ``default_region``, ``ip_addresses``, ``keep_public_addresses``, and
    ``patterns``: a list of tables with ``name``, ``pattern`` and an optional
    ``token``). The variables ``TINYMEMORY_SAFETY_BARE_CARD``, ``..._EMAILS``
    and ``..._PUBLIC_ADDRESSES`` (``redact``/``keep``), ``..._REGION`` and
    ``..._IP_ADDRESSES`` override it. A bad key or value
    is a ``ConfigError`` naming it (never a pattern).
    """
    env = os.environ if environ is None else environ
    unknown = sorted(set(settings) - set(SETTINGS_KEYS))
    if unknown:
        raise tm.ConfigError(
            f"[plugins.safety]: unknown key `{unknown[0]}` (expected {', '.join(SETTINGS_KEYS)})"
        )
    chosen: dict[str, Any] = {key: settings[key] for key in SETTINGS_KEYS if key in settings}
    origin = {key: f"[plugins.safety] `{key}`" for key in chosen}
    if "patterns" in chosen:
        chosen["patterns"] = _patterns_from_tables(chosen["patterns"])
    overrides = {
        BARE_CARD_VARIABLE: "bare_card",
        REGION_VARIABLE: "default_region",
        IP_ADDRESSES_VARIABLE: "ip_addresses",
    }
    for variable, key in overrides.items():
        if env.get(variable, "").strip():
            chosen[key], origin[key] = env[variable].strip().lower(), variable
    for variable, key, keep_means in (
        (EMAILS_VARIABLE, "redact_emails", False),
        (PUBLIC_ADDRESSES_VARIABLE, "keep_public_addresses", True),
    ):
        if env.get(variable, "").strip():
            choice = env[variable].strip().lower()
            if choice not in {"redact", "keep"}:
                raise tm.ConfigError(f"{variable} must be `redact` or `keep`, not `{choice}`")
            chosen[key], origin[key] = (choice == "keep") == keep_means, variable
    for key, value in chosen.items():
        if key in {"bare_card", "default_region", "ip_addresses"} and not isinstance(value, str):
            raise tm.ConfigError(f"{origin[key]} must be a string")
        try:
            Policy(**{key: value})
        except tm.ConfigError as error:
            raise tm.ConfigError(f"{origin[key]}: {error.message}") from None
    return Policy(**chosen)


def _patterns_from_tables(tables: object) -> list[HostPattern]:
    if not isinstance(tables, list) or not all(isinstance(table, Mapping) for table in tables):
        raise tm.ConfigError("[plugins.safety]: `patterns` must be a list of tables")
    patterns = []
    for table in tables:
        unknown = sorted(set(table) - {"name", "pattern", "token"})
        if unknown or "name" not in table or "pattern" not in table:
            raise tm.ConfigError(
                "[plugins.safety]: each of `patterns` has `name`, `pattern` and an optional "
                f"`token`{f', not `{unknown[0]}`' if unknown else ''}"
            )
        patterns.append(HostPattern(**table))
    return patterns
