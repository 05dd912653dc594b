"""Look-alikes: what has a secret's or a person's shape and is neither, as classes.

- **Placeholders**: a value elided with an ellipsis (``sk-ant-...``,
  ``sk_live_…``), or whose body after a vendor prefix is one character
  repeated (``ghp_XXXX…``, ``AKIAXXXXXXXXXXXXXXXX``, ``SG.xxxxx.yyyyy``).
  Templates (``${VAR}``, ``<your-key>``, ``…EXAMPLE``) are
  :func:`tinymemory_safety.credentials.placeholder`'s, which calls this.
- **Dotted numbers that are no address**: a product version in a user agent
  (``Chrome/124.0.0.0``), a changelog heading (``## [2.14.0.1]``), an object
  identifier under the ITU/ISO arcs certificates and SNMP use
  (``2.5.29.15``, ``1.3.6.1``), or a number after a word that names it so
  (``section 4.2.1.3``, ``OID``).
- **Addresses that are nobody's**: link-local (``169.254.0.0/16``,
  ``fe80::/10``: the cloud metadata service, APIPA), and the documentation
  ranges (``192.0.2.0/24``, ``198.51.100.0/24``, ``203.0.113.0/24``,
  ``2001:db8::/32``) unless the text gives the address to someone
  ("client", "customer", "connected from"), as synthetic logs do.
- **Public addresses**: an organisation's role mailbox (RFC 2142's
  ``abuse@``, ``postmaster@``, ``security@``…, and ``support@``, ``info@``,
  ``noreply@``…), an address in a copyright or licence notice, and one on a
  ``Name <address>`` line of a list of authors (a text whose head names it so). The
  policy's ``keep_public_addresses`` (default on) decides.
"""

from __future__ import annotations

import ipaddress
import re

from tinymemory_safety.roles import role_local_part

#: A value cut short by its writer: three dots or the ellipsis character.
_ELLIPSIS = re.compile(r"(?:\.{3,}|\u2026)$")
#: Leading segments a vendor prefix is made of: ``sk``, ``live``, ``ghp``, ``xoxb``, ``SG``.
_PREFIX_SEGMENT = re.compile(r"(?a)[A-Za-z]{1,7}(?:api\d\d)?[-_.]")
#: A body of one repeated character, after at most a dozen characters of prefix.
_REPEATED_TAIL = re.compile(r"(?ai)^.{0,12}?([a-z0-9*])\1{7,}$")
#: The least a body must hold beyond its vendor prefix to be a value at all.
_SHORTEST_BODY = 6


def _body(value: str) -> str:
    """``value`` without its vendor prefix segments (``sk-ant-api03-``, ``sk_live_``)."""
    at = 0
    while found := _PREFIX_SEGMENT.match(value, at):
        at = found.end()
    return value[at:]


def elided_end(text: str, end: int) -> int:
    """``end``, or past the ellipsis that follows it (``sk-ant-...``: a stand-in)."""
    if text.startswith("...", end):
        return end + 3
    return end + 1 if text.startswith("\u2026", end) else end


#: A stand-in written in words (``changeme-in-production``, ``REPLACE_ME``,
#: ``your-api-key-here``, ``dummy_secret``, ``TODO``): letters and separators only.
_WORDS_ONLY = re.compile(r"(?a)[A-Za-z]+(?:[-_. ]+[A-Za-z]+)*")
_WORD = re.compile(r"(?a)[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
#: Words that say a value is to be written in later: any one of them, in any case.
_STAND_IN_WORDS = frozenset(
    {"changeme", "replaceme", "placeholder", "example", "examples", "sample", "dummy", "fake",
     "todo", "fixme", "tbd", "redacted", "insert", "foobar", "lorem", "ipsum"}
)  # fmt: skip
#: Pairs of words that say it: ``change me``, ``your ... here``, ``put ... here``.
_STAND_IN_PAIRS = (
    ("change", "me"), ("replace", "me"), ("change", "this"), ("replace", "this"),
    ("your", "here"), ("put", "here"), ("enter", "here"), ("insert", "here"), ("set", "me"),
    ("fill", "in"), ("not", "set"), ("your", "own"), ("replace", "with"), ("change", "before"),
)  # fmt: skip


def stand_in_words(value: str) -> bool:
    """Whether ``value`` is words that ask for a value (``changeme-in-production``)."""
    if not _WORDS_ONLY.fullmatch(value):
        return False
    words = [word.lower() for word in _WORD.findall(value)]
    if any(word in _STAND_IN_WORDS for word in words):
        return True
    joined = ["".join(words[index : index + 2]) for index in range(len(words) - 1)]
    if any(word in _STAND_IN_WORDS for word in joined):
        return True
    return any(
        first in words and second in words[words.index(first) + 1 :]
        for first, second in _STAND_IN_PAIRS
    )


def placeholder_value(value: str) -> bool:
    """Whether ``value`` is a documentation stand-in: elided, one character repeated, or words
    that ask for a value (:func:`stand_in_words`)."""
    if stand_in_words(value):
        return True
    elided = _ELLIPSIS.search(value)
    if elided is not None:
        return len(_body(value[: elided.start()])) < _SHORTEST_BODY
    if _REPEATED_TAIL.match(value):
        return True
    segments = [segment for segment in re.split(r"[-_.]", _body(value)) if segment]
    return (
        bool(segments)
        and all(len(set(segment.lower())) == 1 for segment in segments)
        and (sum(map(len, segments)) >= 4)
    )


# --- dotted numbers ----------------------------------------------------------------------------

#: ``Chrome/``, ``Edg/``, ``OPR/``, ``Safari/``: a product token's version follows.
_PRODUCT_TOKEN = re.compile(r"(?a)[A-Za-z][\w.-]{0,30}/$")
#: A changelog heading or list entry that opens with the version.
_HEADING = re.compile(r"(?a)^[ \t]*(?:#{1,6}[ \t]*|[-*][ \t]*)?\[?v?$")
#: Words that say the dotted number is not an address. "Version" is Latin's ``versio`` in
#: most European languages, declined or not (``versija``, ``versión``, ``versão``,
#: ``wersja``, ``verze``, ``verzió``, ``верзија``, ``версия``): any word opening
#: ``vers``/``verz``/``wers`` (``верс``/``верз``); Icelandic says ``útgáfa``.
_NOT_ADDRESS_WORDS = re.compile(
    r"(?a)(?:oid|arc|section|sect|sec|§|clause|chapter|paragraph|release|build|"
    r"firmware|kernel|ver|rev|mib|snmp\w*|asn\.1|extension|"
    r"[vw]er[sz][^\s\d:=#.]{0,6}|вер[сз][^\s\d:=#.]{0,6}|"
    r"útgáf[^\s\d:=#.]{0,3})[ :=#]*$"
)
#: Object-identifier roots (ITU-T, ISO, joint) whose arcs certificates, LDAP and SNMP use.
_OID_ROOTS = ("0.9.", "1.2.", "1.3.", "2.5.", "2.16.", "2.23.")
_ADDRESS_WORDS = re.compile(r"(?a)(?:\bip|address|addr|host|from|client|server|peer)\b[^\n]{0,12}$")


def dotted_number(text: str, lower: str, start: int) -> bool:
    """Whether the dotted quad at ``start`` is a version, an OID or a section, not an address."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[max(line_start, start - 32) : start]
    if _PRODUCT_TOKEN.search(before) or _HEADING.match(text[line_start:start]):
        return True
    said = lower[max(line_start, start - 24) : start]
    if _NOT_ADDRESS_WORDS.search(said):
        return True
    return text.startswith(_OID_ROOTS, start) and not _ADDRESS_WORDS.search(said)


# --- addresses that are nobody's ---------------------------------------------------------------

_LINK_LOCAL = tuple(ipaddress.ip_network(net) for net in ("169.254.0.0/16", "fe80::/10"))
_DOCUMENTATION = tuple(
    ipaddress.ip_network(net)
    for net in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")
)
#: Words that give an address to someone: then even a documentation address is personal.
_SOMEONES = re.compile(
    r"(?a)(?:client|customer|user|visitor|member|remote|source|src|login|logged in|signed in|"
    r"connected|request(?:ed)?|x-forwarded-for|remote_addr|from)\b[^\n]{0,24}$"
)


def nobodys_address(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, lower: str, start: int
) -> bool:
    """Whether an address is link-local, or a documentation address nobody is given."""
    if any(address in network for network in _LINK_LOCAL):
        return True
    if any(address in network for network in _DOCUMENTATION):
        line_start = lower.rfind("\n", 0, start) + 1
        return not _SOMEONES.search(lower[max(line_start, start - 40) : start])
    return False


# --- public addresses --------------------------------------------------------------------------

#: Mailboxes of a role, not a person: RFC 2142's and the ones organisations publish.
ROLE_MAILBOXES = frozenset(
    {"abuse", "noc", "security", "postmaster", "hostmaster", "usenet", "news", "webmaster",
     "www", "uucp", "ftp", "info", "marketing", "sales", "support", "noreply", "no-reply",
     "donotreply", "do-not-reply", "help", "helpdesk", "contact", "hello", "billing",
     "privacy", "legal", "press", "media", "jobs", "careers", "office", "team", "enquiries",
     "inquiries", "feedback", "dmarc", "bounce", "bounces", "mailer-daemon", "notifications",
     "alerts", "newsletter", "compliance", "dpo", "gdpr", "psirt", "cert", "soc", "admin",
     "administrator", "root", "devnull", "service", "customerservice", "accounts", "orders",
     "partners", "investors", "events", "community", "opensource", "oss", "licensing"}
)  # fmt: skip
#: A role, a separator and what may follow it: a region's code or a number.
_ROLE_TAILED = re.compile(r"(?a)([a-z-]+?)[._-](?:[a-z]{2}|[0-9]{1,4})")
#: A copyright or licence notice on the address's line.
_NOTICE_LINE = re.compile(
    r"(?a)copyright|\(c\)|©|spdx-filecopyrighttext|spdx-license-identifier|licen[cs]ed? under"
)
#: An author or maintainer line, a notice when a licence is named near it.
_AUTHOR_LINE = re.compile(r"(?a)^[\s#*/;-]*(?:author|authors|maintainer|maintainers)\b")
_LICENCE_NEAR = re.compile(r"(?a)licen[cs]e|spdx|copyright|©")
#: How far around an author line a licence name makes it a notice.
_NOTICE_REACH = 200
#: A line that is only a name and its address, as a list of authors or contributors has.
_ATTRIBUTION_LINE = re.compile(r"^[\s#*/;-]*[^\W\d_][\w .'-]{0,60}+<[^<>\s]{3,254}+>\s*$")
#: What a list of authors says it is, in its head: its file opens with it.
_CREDITS_HEAD = re.compile(
    r"(?a)\b(?:authors?|contributors?|maintainers?|credits|copyright|licen[cs]e)\b"
)


def role_mailbox(local: str) -> bool:
    """Whether an address's local part names a role (``security``, ``no-reply+bounce``).

    Its words are all words of a function (:func:`tinymemory_safety.roles.role_local_part`),
    or it is a role of :data:`ROLE_MAILBOXES` with a region's code or a number after a
    separator (``support-eu``, ``noc.2``): a name there (``sales.mark``) makes it a person's.
    """
    name = local.lower().split("+", 1)[0]
    if name in ROLE_MAILBOXES or role_local_part(name):
        return True
    tailed = _ROLE_TAILED.fullmatch(name)
    return tailed is not None and tailed.group(1) in ROLE_MAILBOXES


def in_notice(lower: str, start: int) -> bool:
    """Whether the address at ``start`` stands in a copyright or licence notice."""
    line_start = lower.rfind("\n", 0, start) + 1
    line_end = lower.find("\n", start)
    line = lower[line_start : len(lower) if line_end < 0 else line_end]
    if _NOTICE_LINE.search(line):
        return True
    if _AUTHOR_LINE.match(line):
        near = lower[max(0, line_start - _NOTICE_REACH) : line_start + len(line) + _NOTICE_REACH]
        return _LICENCE_NEAR.search(near) is not None
    if _ATTRIBUTION_LINE.match(line):
        # "Name <address>" alone on its line, in a text that opens as a list of authors
        # (an AUTHORS or CONTRIBUTORS file says so in its head).
        return _CREDITS_HEAD.search(lower[:_NOTICE_REACH]) is not None
    return False
