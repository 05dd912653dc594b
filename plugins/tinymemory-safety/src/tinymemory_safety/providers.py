"""The provider-token catalogue: tokens that announce their issuer by a prefix or a host.

The formats are the published ones (the providers' own documentation,
gitleaks' rules, detect-secrets' plugins, GitHub's secret-scanning partner
list), taken as facts and written here as patterns of our own. Every
pattern opens with its literal prefix, so ``re`` scans for it at C speed,
and its repetitions are bounded or possessive. Tokens are matched by shape
only, never by a checksum: a leaked token may be truncated, and synthetic
ones fail the providers' checksums.

Tokens with no prefix of their own (Datadog, Twilio auth tokens, Okta,
Heroku's legacy keys, Azure account keys...) are found where they travel:
in a ``KEY=value`` assignment, a header, a connection string (see
:mod:`tinymemory_safety.assignments`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinymemory_safety.credentials import REDACTED, SHAPE_PASS, Scan
from tinymemory_safety.hits import Hit
from tinymemory_safety.lookalikes import elided_end, placeholder_value
from tinymemory_safety.vendortokens import vendor_tokens

#: (class, pattern, whether the token's length is fixed so it must end a word).
_CATALOGUE: tuple[tuple[str, str, bool], ...] = (
    # Model providers.
    ("anthropic", r"sk-ant-[\w-]{16,}+", False),
    ("openai", r"sk-(?:(?:proj|org|svcacct|admin)-[\w-]{12,}+|[\w-]{20,}+)", False),
    ("huggingface", r"(?:hf_|api_org_)[A-Za-z0-9]{30,}+", False),
    ("replicate", r"r8_[A-Za-z0-9]{30,}+", False),
    ("groq", r"gsk_[A-Za-z0-9]{40,}+", False),
    ("xai", r"xai-[A-Za-z0-9]{40,}+", False),
    ("perplexity", r"pplx-[A-Za-z0-9]{40,}+", False),
    ("langsmith", r"lsv2_(?:pt|sk)_[A-Za-z0-9_]{30,}+", False),
    ("pinecone", r"pcsk_[\w]{40,}+", False),
    # Code hosts and package registries.
    ("github", r"gh[pousr]_[A-Za-z0-9]{20,}+", False),
    ("github", r"github_pat_\w{20,}+", False),
    ("gitlab", r"gl(?:pat|dt|rt|ptt|cbt|ffct|oas|soat|imt|ft|agent)-[\w-]{16,}+", False),
    ("gitlab", r"GR1348941[\w-]{20,}+", False),
    ("atlassian", r"AT(?:ATT|CTT)3[\w=-]{40,}+", False),
    ("atlassian", r"ATBB[A-Za-z0-9_=.-]{28,}+", False),
    ("npm", r"npm_[A-Za-z0-9]{20,}+", False),
    ("pypi", r"pypi-[\w-]{50,}+", False),
    ("rubygems", r"rubygems_[a-f0-9]{48}", True),
    ("nuget", r"oy2[a-z0-9]{43}", True),
    ("clojars", r"CLOJARS_[a-z0-9]{60}", True),
    ("docker", r"dckr_(?:pat|oat)_[\w-]{20,}+", False),
    # Clouds and hosting.
    ("aws", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}", True),
    ("google", r"AIza[\w-]{35}", True),
    ("google", r"ya29\.[\w-]{20,}+", False),
    ("google", r"1//0[\w-]{30,}+", False),
    ("google", r"GOCSPX-[\w-]{24,}+", False),
    ("firebase", r"AAAA[\w-]{7}:APA91b[\w-]{100,}+", False),
    ("alibaba", r"LTAI[A-Za-z0-9]{20}", True),
    ("tencent", r"AKID[A-Za-z0-9]{32}", True),
    ("digitalocean", r"do[opr]_v1_[a-f0-9]{64}", True),
    ("heroku", r"HRKU-[\w-]{40,}+", False),
    ("fly", r"fo1_[\w-]{40,}+", False),
    ("fly", r"fm[12][ar]?_[\w+/=-]{40,}+", False),
    ("netlify", r"nfp_[A-Za-z0-9]{36,}+", False),
    ("render", r"rnd_[A-Za-z0-9]{30,}+", False),
    ("supabase", r"sbp_[a-f0-9]{40}", True),
    ("supabase", r"sb_secret_[\w-]{20,}+", False),
    ("planetscale", r"pscale_(?:tkn|pw|oauth)_[\w.-]{32,}+", False),
    ("databricks", r"dapi[a-f0-9]{32}(?:-\d)?+", True),
    ("terraform", r"[A-Za-z0-9]{14}\.atlasv1\.[\w-]{60,}+", False),
    ("vault", r"hv[sb]\.[\w-]{24,}+", False),
    ("doppler", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}+", False),
    ("pulumi", r"pul-[a-f0-9]{40}", True),
    ("age", r"AGE-SECRET-KEY-1[A-Z0-9]{58}", True),
    # Payments and commerce.
    ("stripe", r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}+", False),
    ("stripe", r"whsec_[A-Za-z0-9]{24,}+", False),
    ("square", r"sq0(?:atp|csp)-[\w-]{22,}+", False),
    ("square", r"EAAA[\w-]{60,}+", False),
    ("shopify", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", True),
    ("shippo", r"shippo_(?:live|test)_[a-f0-9]{40}", True),
    ("flutterwave", r"FLW(?:SECK|PUBK)_TEST-[a-h0-9]{32}-X", True),
    # Messaging and mail.
    ("slack", r"xox[abposre]-[A-Za-z0-9-]{10,}+", False),
    ("slack", r"xapp-\d-[A-Za-z0-9-]{10,}+", False),
    ("twilio", r"SK[0-9a-fA-F]{32}", True),
    ("sendgrid", r"SG\.[\w-]{16,}+\.[\w-]{16,}+", False),
    ("mailgun", r"key-[0-9a-f]{32}", True),
    ("mailchimp", r"[0-9a-f]{32}-us\d{1,2}", True),
    ("postmark", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}", True),
    ("facebook", r"EAA[BCD][A-Za-z0-9]{80,}+", False),
    ("twitter", r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,}+", False),
    ("discord", r"[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,38}", True),
    # Observability and work tools.
    ("grafana", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}", True),
    ("grafana", r"glc_[A-Za-z0-9+/]{32,}+={0,2}", False),
    ("newrelic", r"NR(?:AK|II|JS)-[A-Za-z0-9]{19,}+", False),
    ("sentry", r"sntry[su]_[\w=+/]{40,}+", False),
    ("notion", r"(?:ntn_|secret_)[A-Za-z0-9]{40,}+", False),
    ("linear", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}+", False),
    ("airtable", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}", True),
    ("figma", r"figd_[\w-]{40,}+", False),
    ("contentful", r"CFPAT-[\w-]{40,}+", False),
    ("typeform", r"tfp_[\w.-]{40,}+", False),
    ("dropbox", r"sl\.[\w-]{130,}+", False),
    ("mapbox", r"sk\.eyJ[\w-]{20,}+\.[\w-]{20,}+", False),
    ("onepassword", r"ops_eyJ[A-Za-z0-9+/]{200,}+={0,3}", False),
    ("prefect", r"pnu_[A-Za-z0-9]{36}", True),
    ("readme", r"rdme_[a-z0-9]{70}", True),
)


def _literal_prefix(pattern: str) -> str:
    """The literal characters a pattern opens with (``ya29\\.`` gives ``ya29.``), maybe none."""
    prefix = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char.isalnum() or char in "_-/~:":
            prefix.append(char)
        elif char == "\\" and pattern[at + 1 : at + 2] in {".", "-", "_"}:
            prefix.append(pattern[at + 1])
            at += 1
        else:
            break
        at += 1
    # A quantified last character is not literal: ``ab{2}`` opens with ``a``, not ``ab``.
    if at < len(pattern) and pattern[at] in "{?*+" and prefix:
        prefix.pop()
    return "".join(prefix)


def _literals(pattern: str) -> tuple[str, ...]:
    """Literals one of which every match holds: its opening, each branch's, or after a class."""
    if pattern.startswith("(?:"):
        branches = pattern[3 : pattern.index(")")].split("|")
        literals = tuple(_literal_prefix(branch) for branch in branches)
        return literals if all(literals) else ("",)
    if pattern.startswith("["):
        rest = pattern[pattern.index("]") + 1 :]
        if rest.startswith("{"):
            rest = rest[rest.index("}") + 1 :]
        return (_literal_prefix(rest),)
    return (_literal_prefix(pattern),)


#: (class, compiled pattern, fixed length, literals one of which a text must hold to match).
_COMPILED = tuple(
    (kind, re.compile("(?a)" + pattern), fixed, _literals(pattern))
    for kind, pattern, fixed in _CATALOGUE
)
#: Every class of the catalogue, the webhook URLs, the Azure secrets and any vendor's tokens.
PROVIDER_CLASSES = frozenset(
    {kind for kind, _, _ in _CATALOGUE} | {"webhook", "azure", "prefixed_token"}
)

#: Webhook URLs whose path is the credential: the host stays, the path goes.
_WEBHOOKS = re.compile(
    r"(?a)(?:hooks\.slack\.com/(?:services|workflows|triggers)"
    r"|discord(?:app)?\.com/api/webhooks"
    r"|webhook\.office\.com/webhookb2"
    r"|hooks\.zapier\.com/hooks/catch"
    r"|outlook\.office\.com/webhook)"
    r"(/[\w@/-]{16,512}+)"
)
#: Azure AD client secrets: three characters, a digit, ``Q~``, 31-34 more.
_AZURE_SECRET = re.compile(r"(?a)Q~[\w~.-]{31,34}+")


#: Every literal of the catalogue in one alternation, longest first.
_ANY_LITERAL = re.compile(
    "|".join(
        re.escape(literal)
        for literal in sorted(
            {lit for _, _, _, lits in _COMPILED for lit in lits if lit}, key=len, reverse=True
        )
    )
)
#: For each literal the alternation may report, the patterns it (or a literal inside it) opens.
_BY_LITERAL: dict[str, tuple[int, ...]] = {
    found: tuple(
        rank
        for rank, (_, _, _, literals) in enumerate(_COMPILED)
        if any(literal and literal in found for literal in literals)
    )
    for found in {lit for _, _, _, lits in _COMPILED for lit in lits if lit}
}
#: Patterns one of whose branches opens with no literal: tried on every long word.
_ALWAYS = tuple(rank for rank, (_, _, _, literals) in enumerate(_COMPILED) if "" in literals)


#: Patterns whose alphabet holds ``%``: their tokens carry percent-escapes (Twitter's
#: app-only bearer tokens are URL-encoded), which folding decodes and so cuts.
_PERCENT_ESCAPED = frozenset(
    rank for rank, (_, pattern, _, _) in enumerate(_COMPILED) if "%" in pattern.pattern
)


def percent_escaped_tokens(scan: Scan) -> Iterator[Hit]:
    """The tokens of :data:`_PERCENT_ESCAPED` patterns, in a text read as written (not folded)."""
    if "%" in scan.text:
        yield from _catalogued(scan, _PERCENT_ESCAPED)


def provider_tokens(scan: Scan) -> Iterator[Hit]:
    """Every catalogued provider token, any vendor's token, webhook path and Azure AD client secret.

    Only the long words of the text (:meth:`Scan.long_words`) are read, and in
    each only the patterns whose literal one alternation finds in it.
    """
    text = scan.text
    yield from _catalogued(scan)
    for start_at, end_at in scan.long_words():
        for start, end in vendor_tokens(text, start_at, end_at):
            if "EXAMPLE" not in text[start:end] and not placeholder_value(
                text[start : elided_end(text, end)]
            ):
                yield Hit(start, end, REDACTED, "prefixed_token", (SHAPE_PASS, len(_COMPILED)))
    if "hook" in text:
        for match in _WEBHOOKS.finditer(text):
            yield Hit(*match.span(1), REDACTED, "webhook", (SHAPE_PASS, len(_COMPILED)))
    if "Q~" in text:
        for match in _AZURE_SECRET.finditer(text):
            start = match.start() - 4
            head = text[max(0, start) : match.start()]
            if len(head) == 4 and head[3].isdigit() and scan.starts_word(start):
                yield Hit(start, match.end(), REDACTED, "azure", (SHAPE_PASS, len(_COMPILED)))


def _catalogued(scan: Scan, only: frozenset[int] | None = None) -> Iterator[Hit]:
    """The catalogue's tokens in the long words of ``scan`` (of the ranks ``only``, if given)."""
    text = scan.text
    for start_at, end_at in scan.long_words():
        ranks = set(_ALWAYS)
        for literal in _ANY_LITERAL.findall(text, start_at, end_at):
            ranks.update(_BY_LITERAL[literal])
        if only is not None:
            ranks &= only
        for rank in sorted(ranks):
            kind, pattern, fixed, _ = _COMPILED[rank]
            for match in pattern.finditer(text, start_at, end_at):
                start, end = match.span()
                if not scan.starts_word(start) or "EXAMPLE" in match.group():
                    continue
                if placeholder_value(scan.text[start : elided_end(scan.text, end)]):
                    continue
                if fixed and not scan.ends_word(end):
                    continue
                yield Hit(start, end, REDACTED, kind, (SHAPE_PASS, rank))
