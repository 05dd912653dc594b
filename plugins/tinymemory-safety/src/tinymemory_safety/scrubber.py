"""The scrubber: every detector over an item's texts, the redactions counted by class.

:class:`SafetyScrubber` is a ``tinymemory`` Scrubber. Installed, the plugin
hands one to every engine ``build_engine`` makes; a host may also wrap an
engine itself (``tm.ScrubbingEngine(engine, [SafetyScrubber(policy)])``) or
scrub a text or an item directly and read what was redacted.
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import attrs

import tinymemory as tm
from tinymemory.plugin import item_texts, map_texts
from tinymemory_safety.assignments import (
    api_keys,
    auth_headers,
    key_values,
    markup_pairs,
    stated_secrets,
    url_passwords,
    urls_and_commands,
)
from tinymemory_safety.credentials import HOST_PASS, Scan, markers, private_keys, token_shapes
from tinymemory_safety.directives import credential_directives
from tinymemory_safety.folding import ASCII_LOWER, Folded, fold, wrap_breaks
from tinymemory_safety.hits import Hit, settle, splice
from tinymemory_safety.personal_data import CLASSES, PersonalData
from tinymemory_safety.policy import Policy
from tinymemory_safety.prefilter import may_hold_secret
from tinymemory_safety.providers import percent_escaped_tokens, provider_tokens
from tinymemory_safety.records import basic_credentials, kubernetes_secrets, table_columns

_log = logging.getLogger("tinymemory_safety")
_PERSONAL = frozenset(CLASSES)
#: The most times one pass is run over a text (two is the most the built-ins need).
_MAX_ROUNDS = 8
#: The detectors of the shapes pass: by prefix, by shape, then by where a value travels.
_SHAPE_DETECTORS = (
    provider_tokens,
    token_shapes,
    api_keys,
    key_values,
    markup_pairs,
    auth_headers,
    credential_directives,
    urls_and_commands,
    stated_secrets,
    table_columns,
    kubernetes_secrets,
    basic_credentials,
)


def _shapes(scan: Scan) -> Iterator[Hit]:
    for detect in _SHAPE_DETECTORS:
        yield from detect(scan)


#: What may stand right after or before a find without keeping a neighbour back.
_BOUNDARY = frozenset(" \t\r\n.,;:!?\"'`()[]{}<>/=&|")


def _kept_back(text: str, found: list[Hit], settled: list[Hit]) -> bool:
    """Whether a find may have kept another back: see :meth:`SafetyScrubber.scrub_text`."""
    if any(_touches(text, hit) for hit in settled):
        return True
    if len(settled) == len(found):
        return False
    taken = {(hit.start, hit.end) for hit in settled}
    starts = [hit.start for hit in settled]
    for hit in found:
        if (hit.start, hit.end) in taken:
            continue
        at = bisect.bisect_right(starts, hit.start) - 1
        if at < 0 or settled[at].end < hit.end:
            return True  # dropped, and not inside the find that won: its rest may stand
    return False


def _touches(text: str, hit: Hit) -> bool:
    """Whether a find has a character on either side that may start or end another find."""
    after = text[hit.end : hit.end + 1]
    before = text[hit.start - 1 : hit.start] if hit.start else ""
    return bool(after and after not in _BOUNDARY) or bool(before and before not in _BOUNDARY)


def _wrapped_blocks(
    text: str, breaks: list[tuple[int, int]]
) -> Iterator[tuple[int, int, list[tuple[int, int]]]]:
    """Whole lines around each run of wrap breaks: (start, end, the breaks inside)."""
    at = 0
    while at < len(breaks):
        inside = [breaks[at]]
        line_start = text.rfind("\n", 0, breaks[at][0]) + 1
        start = text.rfind("\n", 0, line_start - 1) + 1 if line_start else 0
        end = _line_end(text, _line_end(text, breaks[at][1]) + 1)
        at += 1
        while at < len(breaks) and breaks[at][0] < end:
            inside.append(breaks[at])
            end = _line_end(text, _line_end(text, breaks[at][1]) + 1)
            at += 1
        yield start, end, inside


def _line_end(text: str, at: int) -> int:
    found = text.find("\n", min(at, len(text)))
    return len(text) if found < 0 else found


def _scan(folded: Folded) -> Scan:
    return Scan(folded.text, folded.text.translate(ASCII_LOWER))


def _percent_escaped(text: str, folded: Folded) -> list[Hit]:
    """Tokens whose format carries percent-escapes, read in ``text`` as written.

    Folding decodes ``%2F`` and its kind (a password in a URL-encoded URL), which
    would cut such a token; found in the text as written, each is mapped onto
    the folded text the pass settles.
    """
    raw = Scan(text, text.translate(ASCII_LOWER))
    return [
        hit._replace(start=folded.folded_index(hit.start), end=folded.folded_index(hit.end))
        for hit in (*percent_escaped_tokens(raw), *url_passwords(raw))
    ]


def _sorted_counts(counts: Mapping[str, int]) -> dict[str, int]:
    return {kind: counts[kind] for kind in sorted(counts) if counts[kind]}


@attrs.frozen
class Redactions:
    """How many redactions of each class (``by_class``), never what was redacted.

    The contract's three counters are sums of classes: ``private_keys``
    (``blocked_secret_hits``), ``secrets`` (``text_redactions``: markers,
    shapes and the host's patterns) and ``personal_data`` (``pii_redactions``).
    """

    by_class: Mapping[str, int] = attrs.field(factory=dict, converter=_sorted_counts)

    @classmethod
    def of(cls, kinds: Iterable[str]) -> Redactions:
        """The redactions of these classes, one each."""
        return cls(Counter(kinds))

    @property
    def total(self) -> int:
        """Every redaction."""
        return sum(self.by_class.values())

    @property
    def private_keys(self) -> int:
        """Private-key blocks replaced whole."""
        return self.by_class.get("private_key", 0)

    @property
    def personal_data(self) -> int:
        """Personal data replaced by a typed token."""
        return sum(count for kind, count in self.by_class.items() if kind in _PERSONAL)

    @property
    def secrets(self) -> int:
        """Credential values and assignments, and the host's own patterns."""
        return self.total - self.private_keys - self.personal_data

    def __add__(self, other: Redactions) -> Redactions:
        return Redactions(Counter(self.by_class) + Counter(other.by_class))

    def __str__(self) -> str:
        return ", ".join(f"{kind}={count}" for kind, count in self.by_class.items()) or "none"


#: No redaction: what a text the pre-filter rules out gets.
_NONE = Redactions()


@attrs.frozen
class ScrubbedText:
    """A text after scrubbing, and what was redacted from it."""

    text: str
    redactions: Redactions


@attrs.frozen
class ScrubbedItem:
    """An item after scrubbing, and what was redacted from all its texts."""

    item: tm.StoreItem
    redactions: Redactions


def _grew_past_cap(original: tm.StoreItem, scrubbed: tm.StoreItem) -> bool:
    """Whether scrubbing took an item within ``max_item_bytes`` past it."""
    cap = tm.item_limits().max_item_bytes
    try:
        return tm.item_size(scrubbed) > cap >= tm.item_size(original)
    except tm.InvalidRequest:  # not unicode text: the engine refuses it either way
        return False


class SafetyScrubber:
    """Redacts secrets and personal data from every text of an item (see docs/safety.md).

    ``policy`` (default :class:`Policy()`) chooses the bare-card rule,
    whether emails go, and adds the host's own patterns. ``totals`` counts
    every redaction :meth:`scrub` made, by class; each scrubbed item's
    counts are logged at debug level on the ``tinymemory_safety`` logger.
    Safe to share between threads.
    """

    name = "safety"
    #: After other scrubbers, so whatever they leave or add is scrubbed too.
    priority = 100

    def __init__(self, policy: Policy | None = None) -> None:
        if policy is not None and not isinstance(policy, Policy):
            raise tm.ConfigError("SafetyScrubber takes a tinymemory_safety.Policy")
        self.policy = Policy() if policy is None else policy
        self._personal = PersonalData(
            bare_card=self.policy.bare_card,
            emails=self.policy.redact_emails,
            region=self.policy.default_region,
            ip_addresses=self.policy.ip_addresses,
            keep_public_addresses=self.policy.keep_public_addresses,
        )
        self._lock = threading.Lock()
        self._totals = Redactions()

    def __repr__(self) -> str:
        return f"SafetyScrubber({self.policy!r})"

    @property
    def totals(self) -> Redactions:
        """Every redaction :meth:`scrub` has made so far, by class."""
        with self._lock:
            return self._totals

    def scrub_text(self, text: str, *, compact: bool = False) -> ScrubbedText:
        """``text`` with every secret and piece of personal data replaced by its token.

        The passes run in the contract's order, each on the text the one before
        left: private keys, credential markers, credential shapes, the host's
        patterns, personal data. So a value that ran into a key block is read
        again, cut at the block's token, by the next pass, and a second scrub
        of the result changes nothing. ``compact``: no replacement is longer
        than what it replaces (see :meth:`scrub_item`).
        """
        if not self.policy.patterns and not may_hold_secret(text):
            return ScrubbedText(text, _NONE)
        passes = (private_keys, markers, _shapes, self._host_hits, self._personal.find)
        kinds: list[str] = []
        breaks = wrap_breaks(text) if "\n" in text else []
        if breaks:
            text = self._wrapped(text, breaks, kinds, compact=compact)
        folded = fold(text)
        scan = _scan(folded)
        stale = False  # the text changed since ``scan`` was read
        for detect in passes:
            # Once, and again only while a find may have kept another back: it
            # overlapped one (settle dropped it), or it touches its neighbour with
            # no word boundary between (``...1117+1 415...``), which the neighbour
            # starts once the find is a token. The bound only guards against host
            # patterns that feed each other.
            for _ in range(_MAX_ROUNDS):
                if stale:
                    folded = fold(text)
                    scan = _scan(folded)
                    stale = False
                found = list(detect(scan))
                if detect is _shapes and folded.to and "%" in text:
                    found += _percent_escaped(text, folded)
                settled = settle(found)
                if not settled:
                    break
                text = splice(text, folded, settled, compact=compact)
                kinds.extend(hit.kind for hit in settled)
                stale = True
                if not _kept_back(scan.text, found, settled):
                    break
        return ScrubbedText(text, Redactions.of(kinds))

    def _wrapped(
        self, text: str, breaks: list[tuple[int, int]], kinds: list[str], *, compact: bool
    ) -> str:
        """``text`` with the secrets a hard wrap cut across lines redacted whole.

        The markers, shapes and personal-data passes read, around each run of
        wrap breaks, the lines from the one before the first break to the one
        after the last, joined there; only what they find across a line break is
        taken here, the rest is left to the passes over the text as written. A
        break joins runs of 16 characters or more (:func:`wrap_breaks`), so of
        personal data a compact IBAN or card number is joined, a phone number
        (15 digits at most) is not: a wrap cuts it only where it is written in
        groups, at a space, which is a line ending like any other.
        """
        crossing: list[Hit] = []
        for start, end, inside in _wrapped_blocks(text, breaks):
            block = text[start:end]
            folded = fold(block, [(at - start, stop - start) for at, stop in inside])
            scan = _scan(folded)
            for hit in settle([*markers(scan), *_shapes(scan), *self._personal.find(scan)]):
                first, last = folded.original_span(hit.start, hit.end)
                if "\n" in block[first:last]:
                    crossing.append(hit._replace(start=start + first, end=start + last))
        crossing = settle(crossing)  # blocks may share a line of context
        if not crossing:
            return text
        kinds.extend(hit.kind for hit in crossing)
        return splice(text, Folded(text), crossing, compact=compact)

    def scrub_item(self, item: tm.StoreItem) -> ScrubbedItem:
        """``item`` with its texts scrubbed: title and text body, turns, learning, ``meta.url``.

        Every other field (ids, names, paths, tags, the rest of ``meta``) is
        left as it is, since filters match on them. Scrubbing never makes a
        storable item unstorable: when the tokens, longer than what they
        replace, would push the item past ``max_item_bytes``, it is scrubbed
        again with replacements no longer than what they replace
        (``[REDACTED]``, or ``*`` a character).
        """
        scrubbed = self._scrub_texts(item, compact=False)
        if scrubbed.redactions.total and _grew_past_cap(item, scrubbed.item):
            return self._scrub_texts(item, compact=True)
        return scrubbed

    def _scrub_texts(self, item: tm.StoreItem, *, compact: bool) -> ScrubbedItem:
        found: list[Redactions] = []

        def change(text: str) -> str:
            scrubbed = self.scrub_text(text, compact=compact)
            if scrubbed.redactions is not _NONE:
                found.append(scrubbed.redactions)
            return scrubbed.text

        scrubbed = map_texts(item, change)
        return ScrubbedItem(scrubbed, sum(found, _NONE))

    def scrub(self, item: tm.StoreItem) -> tm.StoreItem:
        """The item scrubbed (the Scrubber hook); its counts join :attr:`totals`."""
        result = self.scrub_item(item)
        if result.redactions.total:
            with self._lock:
                self._totals = self._totals + result.redactions
            _log.debug("scrubbed a %s: %s", type(item).__name__.lower(), result.redactions)
        return result.item

    def scrub_many(self, items: Sequence[tm.StoreItem]) -> list[tm.StoreItem]:
        """Each item as :meth:`scrub` gives it (the Scrubber hook's batch form).

        The pre-filter reads every text of the batch in one scan first: when
        none could hold a secret, the items come back as they are, the same
        objects. Otherwise the items whose own texts could are scrubbed, and
        only they; the others come back as they are.
        """
        if self.policy.patterns:
            return [self.scrub(item) for item in items]
        texts = [item_texts(item) for item in items]
        if not may_hold_secret("\n".join(text for held in texts for text in held)):
            return list(items)
        return [
            self.scrub(item) if may_hold_secret("\n".join(held)) else item
            for item, held in zip(items, texts, strict=True)
        ]

    def _host_hits(self, scan: Scan) -> Iterator[Hit]:
        for index, host in enumerate(self.policy.patterns):
            group = "secret" if "secret" in host.pattern.groupindex else 0
            for match in host.pattern.finditer(scan.text):
                start, end = match.span(group)
                if end > start:
                    yield Hit(start, end, host.token, host.name, (HOST_PASS, index))
