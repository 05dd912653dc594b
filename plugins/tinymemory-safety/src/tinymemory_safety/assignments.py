"""Credentials found by where they travel, not by their shape.

A value is a secret because of what names it: a key that names a secret
(``DB_PASSWORD=``, ``"api_token":``, ``AccountKey=``, ``password =`` in
``.env``, YAML, JSON, INI, TOML, shell ``export``), an HTTP auth header of
any scheme, a URL's or connection string's ``user:password@``, a secret
query parameter, ``curl -u``, a ``.netrc`` or ``.pgpass`` line, or a
sentence that says it ("my wifi password is ...", "PIN: 4821", in several
languages). What names no secret, or holds no value, stays: a key's name
alone, a variable it reads (``os.environ['GITHUB_TOKEN']``), a template
(``${API_KEY}``, ``<your-key>``), a public key's or a hash's field.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from tinymemory_safety.credentials import (
    ALNUM,
    REDACTED,
    SHAPE_PASS,
    Scan,
    credential_like,
    has_digit,
    placeholder,
    token_run,
)
from tinymemory_safety.hits import Hit
from tinymemory_safety.lookalikes import elided_end, placeholder_value
from tinymemory_safety.secret_names import names_secret, password_terms

_QUOTES = "\"'`"
#: A key's words: ``DB_PASSWORD`` is db, password; ``AccountKey`` account, key.
_KEY_WORDS = re.compile(r"(?a)[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_KEY_CHARS = frozenset("_.-").union(ALNUM)
#: A key holding one of these words names a secret wherever the word stands.
_SECRET_WORDS = frozenset(
    {"password", "passwd", "passphrase", "passcode", "secret", "secrets", "credential",
     "credentials", "pwd"}
)  # fmt: skip
#: A key ending in one of these names a secret (``api_token``, ``AccountKey``, ``db_pass``).
_SECRET_LAST = frozenset(
    {"token", "key", "pass", "pw", "pin", "auth", "apikey", "cookie", "sig", "passwd",
     "password", "secret", "pwd", "passphrase", "passcode", "credentials", "credential"}
)  # fmt: skip
#: A key ending in one of these names something about a secret, not the secret itself.
_NOT_SECRET_LAST = frozenset(
    {"name", "names", "id", "ids", "ref", "path", "file", "dir", "arn", "type", "count",
     "length", "len", "env", "var", "ttl", "version", "policy", "rotation", "enabled",
     "required", "min", "max", "expiry", "expires", "expiration", "age", "label", "hash",
     "hashed", "digest", "sha", "checksum", "fingerprint", "hint", "url", "uri", "prompt",
     "field", "header", "param", "location", "store", "manager", "reset", "mode", "format",
     "size", "limit", "strength", "rules", "algorithm", "alg", "provider", "endpoint",
     "host", "user", "username", "login", "email", "pattern", "regex", "source", "kind",
     "usage", "scope", "scopes", "salt", "rounds", "iterations", "set", "exists"}
)  # fmt: skip
#: A key holding one of these words is no secret: ``public_key``, ``sort_key``, ``max_tokens``.
_NOT_SECRET_ANY = frozenset(
    {"public", "pub", "publishable", "primary", "foreign", "sort", "partition", "cache",
     "idempotency", "page", "next", "continuation", "pagination", "cursor", "num", "total",
     "input", "output", "completion", "eos", "bos", "pad", "unk", "sep", "cls", "mask",
     "object", "row", "shard", "routing", "lookup", "dict", "map", "index", "unique",
     "group", "hot", "composite", "natural", "surrogate", "range", "dedup", "lock", "sync",
     "tokens", "keys", "monkey", "turkey", "donkey", "jockey", "hockey", "whiskey",
     "secretary", "secretaries", "secretariat"}
)  # fmt: skip
#: Values that name nothing secret: booleans, nulls, the words templates write.
_DUMMY_VALUES = frozenset(
    {"true", "false", "null", "none", "nil", "undefined", "yes", "no", "on", "off",
     "required", "optional", "password", "passwd", "secret", "changeme", "change_me",
     "change-me", "placeholder", "example", "dummy", "redacted", "todo", "tbd", "hidden",
     "masked", "notset", "not-set", "unset", "empty", "string", "str", "test", "sample"}
)  # fmt: skip
_SEPARATOR = re.compile(r"(?a)(?::=|=>|[:=])")
_AFTER_SEPARATOR = re.compile(r"(?a)[ \t]*+")
_QUOTED = {quote: re.compile(f"(?a){quote}([^{quote}\\n]{{1,512}}){quote}") for quote in _QUOTES}
_UNQUOTED = re.compile(r"(?a)[^\s\"'`,;&<>(){}\[\]]{1,512}")
#: ``os.environ``, ``settings.SECRET_KEY``, ``process.env.TOKEN``: code, not a value.
_DOTTED_NAME = re.compile(r"(?a)[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)+")
#: ``GITHUB_TOKEN``, ``db_password``: the name of a variable, not its value.
_VARIABLE_NAME = re.compile(r"(?a)[A-Z][A-Z]*(?:_[A-Z]+)+|[a-z][a-z]*(?:_[a-z]+)+")
_BEGIN_PUBLIC = ("ssh-", "ecdsa-", "-----BEGIN PUBLIC", "-----BEGIN CERTIFICATE", "sha256:")


@functools.lru_cache(maxsize=4096)
def is_secret_key(key: str) -> bool:
    """Whether a key (``DB_PASSWORD``, ``x-api-key``, ``AccountKey``, ``Passwort``) names a secret.

    English words by the rules above; other languages by :mod:`tinymemory_safety.secret_names`.
    """
    words = [word.lower() for word in _KEY_WORDS.findall(key)]
    if not words:
        return names_secret(key)  # a key in another script (``Пароль``)
    if any(word in _NOT_SECRET_ANY for word in words) or words[-1] in _NOT_SECRET_LAST:
        return False
    if words[-1] in _SECRET_LAST or "".join(words[-2:]) in {"apikey", "authtoken", "keydata"}:
        return True
    return any(word in _SECRET_WORDS for word in words) or names_secret(key)


def is_value(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` may be a secret: not a template, a name, code or a dummy."""
    value = text[start:end]
    if not value or placeholder(value) or value.lower() in _DUMMY_VALUES:
        return False
    if placeholder_value(text[start : elided_end(text, end)]):
        return False
    if value.startswith(_BEGIN_PUBLIC) or "EXAMPLE" in value or "example" in value:
        return False
    if value.lower().startswith(("your", "my-", "my_", "<", "xxx")):
        return False
    quoted = start > 0 and text[start - 1] in _QUOTES and text[end : end + 1] == text[start - 1]
    if _DOTTED_NAME.fullmatch(value) or (not quoted and _VARIABLE_NAME.fullmatch(value)):
        return False  # a name (unquoted ``GITHUB_TOKEN``), not a value
    # ``os.getenv("X")``, ``vault[...]``: what follows makes it a call or a lookup;
    # ``dop_v1_<your-token>``, ``sk_${KEY}``: a template, its prefix written out.
    if text.startswith("<", end) and not text.startswith("</", end):
        return False
    return text[end : end + 1] not in {"(", "["} and not text.startswith(("${", "{{"), end)


def _value_span(text: str, at: int) -> tuple[int, int] | None:
    """The span of the value at ``at``: a quoted string's inside, or an unquoted run."""
    quoted = _QUOTED.get(text[at : at + 1])
    if quoted is not None:
        found = quoted.match(text, at)
        return None if found is None else found.span(1)
    found = _UNQUOTED.match(text, at)
    if found is None:
        return None
    # An unquoted value's last full stop or colon is the sentence's, not the value's.
    value = found.group().rstrip(".:!?")
    return (at, at + len(value)) if value else None


def key_values(scan: Scan) -> Iterator[Hit]:
    """``key = value`` / ``key: value`` where the key names a secret: the whole assignment.

    Read from each separator back to its key, so prose without ``=`` or ``:``
    costs one scan. Covers ``.env``, YAML, JSON, INI, TOML, shell ``export``,
    connection strings (``Password=...;``), query strings and headers such as
    ``X-Auth-Token:``.
    """
    text = scan.text
    if "=" not in text and ":" not in text:
        return
    done = 0
    for separator in _SEPARATOR.finditer(text):
        if separator.start() < done:
            continue
        key_end = separator.start()
        while key_end > 0 and text[key_end - 1] in " \t":
            key_end -= 1
        if key_end > 0 and text[key_end - 1] in "\"'":
            key_end -= 1  # ``"key" = value``: PowerShell's hashtables, TOML's quoted keys
        if key_end < 2 or text[key_end - 1] not in _KEY_CHARS:
            continue  # no key of two characters or more ends here
        key_start = scan.run_before(key_end, _KEY_CHARS, 64)
        if key_end - key_start < 2 or not scan.starts_word(key_start):
            continue
        key = text[key_start:key_end]
        if not is_secret_key(key) or key.lower().replace("-", "_").endswith("api_key"):
            continue  # the api_key rule keeps the key and takes the value
        at = _AFTER_SEPARATOR.match(text, separator.end()).end()  # type: ignore[union-attr]
        if key.lower() == "key" and (
            _VALUE_ATTRIBUTE.match(text, at) or _VALUE_FIELD.match(text, at)
        ):
            continue  # ``<add key="ApiSecret" value="…">``, ``{key: X-Api-Key, value: …}``: a name
        span = _value_span(text, at)
        if span is None or not is_value(text, *span):
            continue
        value = text[span[0] : span[1]]
        if not credential_like(value, relaxed=False):
            continue
        if key.lower().endswith(("token", "key")) and not re.search("[A-Za-z]", value):
            continue  # max_token=4096 is a count, sort_key: 2025-05-04 a date
        end = span[1] + (1 if text[at : at + 1] in _QUOTES else 0)
        start = key_start - (1 if key_start > 0 and text[key_start - 1] in "\"'" else 0)
        yield Hit(start, end, REDACTED, "secret_assignment", (SHAPE_PASS, 101))
        done = end  # a key inside this value goes with it


_API_KEY = re.compile(r"(?a)api[_-]?key")
_API_KEY_SEPARATOR = re.compile(r"(?a)[\"']?(?:([ \t]*[=:][ \t]*)|[ \t]+)")


def api_keys(scan: Scan) -> Iterator[Hit]:
    """``api_key``/``api-key``/``apikey`` + ``=``, ``:`` or a space + a value: the value goes."""
    if "api" not in scan.lower:
        return
    for match in _API_KEY.finditer(scan.lower):
        separator = _API_KEY_SEPARATOR.match(scan.text, match.end())
        if separator is None:
            continue
        at = separator.end()
        if at < len(scan.text) and scan.text[at] in _QUOTES:
            at += 1
        word = token_run(scan.text, at)
        # After a bare space the value must carry a digit: "api key rotation" is prose.
        spaced = separator.group(1) is None
        if (spaced and not has_digit(word)) or not is_value(scan.text, at, at + len(word)):
            continue
        if credential_like(word, relaxed=False):
            yield Hit(at, at + len(word), REDACTED, "api_key", (SHAPE_PASS, 100))


#: ``<password>value</password>`` (XML configuration: Maven, Jenkins, .NET).
_XML_ELEMENT = re.compile(r"(?a)<([A-Za-z_][\w.:-]{0,63}+)>([^<\n]{1,256}+)</\1>")
#: An element's pair of attributes, a name then its value (``<add key="ApiSecret"
#: value="…"/>``, ``<param name="password" value="…">``, ``<property name=… value=…>``),
#: with up to three other attributes between.
_ATTRIBUTE_PAIR = re.compile(
    r"(?a)<[\w.:-]{1,64}+[^<>]{0,256}?[ \t\n](?:key|name|id|param|property|setting|option)"
    r"[ \t]*+=[ \t]*+([\"'])([\w.:/-]{1,128}+)\1"
    r"(?:[ \t\n]++[\w.:-]{1,64}+[ \t]*+=[ \t]*+([\"'])[^\"'\n<>]{0,256}+\3){0,3}"
    r"[ \t\n]++(?:value|val|content|data|secret)[ \t]*+=[ \t]*+([\"'])([^\"'\n]{1,512}+)\4"
)
#: An element named by its attribute, its text the value, maybe in a child element
#: (``<setting name="ApiSecret"><value>…</value></setting>``, ``<entry key="token">…<``).
_NAMED_ELEMENT = re.compile(
    r"(?a)<[\w.:-]{1,64}+[^<>]{0,256}?[ \t\n](?:key|name)[ \t]*+=[ \t]*+([\"'])"
    r"([\w.:/-]{1,128}+)\1[^<>]{0,256}+>[ \t\n]*+(?:<(?:value|val|string)>)?([^<\n]{1,512}+)<"
)
#: What follows a name attribute's value when a value attribute goes with it.
#: A record's name field, its value's field next (``key: Authorization, value: …``).
_VALUE_FIELD = re.compile(
    r"(?a)[\"']?[\w-]{1,64}+[\"']?[ \t]*+(?:,[ \t]*+|\r?\n[ \t]*+)[\"']?value[\"']?[ \t]*+:"
)
_VALUE_ATTRIBUTE = re.compile(r"(?a)[\"'][^<>\n]{0,256}?[ \t](?:value|val|content|data)[ \t]*=")
#: ``define('DB_PASSWORD', 'value')``, ``config.set("api_token", "value")``: a key and its value.
_CALL_PAIR = re.compile(
    r"(?a)\([ \t]*+([\"'])([\w.-]{1,64}+)\1[ \t]*+,[ \t]*+([\"'])([^\"'\n]{1,256}+)\3"
)
#: ``IDENTIFIED BY 'value'`` (MySQL, Oracle), ``PASSWORD 'value'`` (PostgreSQL).
_SQL_PASSWORD = re.compile(r"(?a)(?:identified by|password)[ \t]++([\"'])([^\"'\n]{1,256}+)\1")


def markup_pairs(scan: Scan) -> Iterator[Hit]:
    """Secrets in XML elements, in ``define``-style calls and in SQL: only the value goes."""
    text = scan.text
    if "<" in text and "=" in text:
        for match in _ATTRIBUTE_PAIR.finditer(text):
            if is_secret_key(match.group(2)) and _secret_value(text, *match.span(5)):
                yield Hit(*match.span(5), REDACTED, "secret_assignment", (SHAPE_PASS, 102))
    if "</" in text and "=" in text:
        for match in _NAMED_ELEMENT.finditer(text):
            if is_secret_key(match.group(2)) and _secret_value(text, *match.span(3)):
                yield Hit(*match.span(3), REDACTED, "secret_assignment", (SHAPE_PASS, 102))
    if "</" in text:
        for match in _XML_ELEMENT.finditer(text):
            if is_secret_key(match.group(1)) and _secret_value(text, *match.span(2)):
                yield Hit(*match.span(2), REDACTED, "secret_assignment", (SHAPE_PASS, 102))
    if "(" in text:
        for match in _CALL_PAIR.finditer(text):
            if is_secret_key(match.group(2)) and _secret_value(text, *match.span(4)):
                yield Hit(*match.span(4), REDACTED, "secret_assignment", (SHAPE_PASS, 102))
    if "identified by" in scan.lower or "password" in scan.lower:
        for match in _SQL_PASSWORD.finditer(scan.lower):
            if _secret_value(text, *match.span(2)):
                yield Hit(*match.span(2), REDACTED, "secret_assignment", (SHAPE_PASS, 102))


def _secret_value(text: str, start: int, end: int) -> bool:
    return is_value(text, start, end) and credential_like(text[start:end], relaxed=False)


# --- HTTP auth headers, URLs, query strings, command lines, credential files -------------------

#: ``Authorization: <scheme> <credentials>`` of any scheme; the scheme stays.
_AUTH_HEADER = re.compile(r"(?a)(?:proxy-)?authorization[\"']?[ \t]*+[:=][ \t]*+[\"']?")
_SCHEME = re.compile(r"(?a)[A-Za-z][\w-]{1,24}+ ++")
_HEADER_VALUE = re.compile(r"(?a)[^\s\r\n][^\r\n]{0,1023}+")
_COOKIE_HEADER = re.compile(r"(?a)(?:set-)?cookie[ \t]*+:[ \t]*+")
_URL_PASSWORD = re.compile(r"(?a)://[^/\s:@]{0,64}+:([^/\s@]{1,256}+)@")
#: A query or fragment parameter whose name names a secret (``?token=``, ``&sig=``).
_PARAMETER = re.compile(r"(?a)[?&#;]([A-Za-z][\w.-]{0,63}+)=([^&#\s\"'<>]++)")
_OAUTH_NAMES = frozenset(
    {"access_token", "refresh_token", "id_token", "authorization_code", "code_verifier",
     "code_challenge", "code", "client_secret", "x-amz-signature", "x-amz-security-token",
     "x-amz-credential", "sig", "signature", "key", "token", "apikey", "api_key", "password",
     "secret", "auth"}
)  # fmt: skip
_CURL_USER = re.compile(r"(?a)(?:\s-u|--user)[ =]?[\"']?[^\s:\"']{1,64}+:([^\s\"']{1,256}+)")
_MYSQL_PASSWORD = re.compile(r"(?a)\s-p([^\s\"'-][^\s\"']{3,255}+)")
_FLAG = re.compile(
    r"(?a)--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token)"
    r"(?:=| +)[\"']?([^\s\"']{4,512}+)"
)
#: A command's login step (``cargo login``, ``sudo docker login``, ``gh auth login``) as a
#: command line opens (maybe after a prompt) or a code span does, and the rest of it: the
#: arguments it may take a credential among.
_LOGIN_COMMAND = re.compile(
    r"(?am)(?:^[ \t]*+(?:[$#>%] )?|`)[a-z][\w.-]{0,31}(?: [a-z][\w.-]{0,31})? (?:auth )?login"
    r"(?![\w-])([^\n`|;&]{0,512})"
)
#: An argument: a flag, or a word maybe quoted.
_ARGUMENT = re.compile(r"(?a)[\"']?([^\s\"']++)[\"']?")
#: A login's short flags that take a password or a token.
_LOGIN_SECRET_FLAGS = frozenset({"-p", "-t"})
#: The shortest token a login takes as a bare argument: a user name, a registry or a
#: server is shorter, or is not letters and digits mixed.
_LOGIN_TOKEN = 16
_NETRC_PASSWORD = re.compile(r"(?a)\bpassword[ \t]++([^\s]{1,256}+)")
_NETRC_LINE = re.compile(r"(?a)\b(?:machine|default|login)\b")
#: ``host:port:database:user:password``, a ``.pgpass`` line.
_PGPASS = re.compile(
    r"(?am)^[^\s:]{1,255}+:(?:\d{1,5}|\*):[^\s:]{1,255}+:[^\s:]{1,255}+:(\S{1,256}+)$"
)


def auth_headers(scan: Scan) -> Iterator[Hit]:
    """``Authorization`` (Basic, Digest, token, ApiKey, SSWS...) and cookie header values."""
    lower = scan.lower
    if "authorization" in lower:
        done = 0
        for header in _AUTH_HEADER.finditer(lower):
            if header.start() < done:
                continue  # inside the value just redacted
            at = header.end()
            scheme = _SCHEME.match(scan.text, at)
            if scheme is not None:
                at = scheme.end()
            value = _header_value(scan, header.start(), at)
            if value is None:
                continue
            end = at + len(value)
            if is_value(scan.text, at, end) and credential_like(scan.text[at:end], relaxed=True):
                yield Hit(at, end, REDACTED, "auth_header", (SHAPE_PASS, 90))
                done = end
    if "cookie" in lower:
        for header in _COOKIE_HEADER.finditer(lower):
            value = _header_value(scan, header.start(), header.end())
            if value is not None and "=" in value:
                end = header.end() + len(value)
                yield Hit(header.end(), end, REDACTED, "auth_header", (SHAPE_PASS, 90))


def _header_value(scan: Scan, name_at: int, at: int) -> str | None:
    """A header's value from ``at`` to the line's end, or to the quote that opened the header."""
    found = _HEADER_VALUE.match(scan.text, at)
    if found is None:
        return None
    value = found.group()
    opener = scan.text[name_at - 1 : name_at]
    if opener and opener in _QUOTES and opener in value:
        value = value[: value.index(opener)]
    value = value.rstrip()
    # A value quoted whole (``Bearer `tok3n` ``) is read inside its quotes.
    return value if not value or value[0] not in _QUOTES else None


def url_passwords(scan: Scan) -> Iterator[Hit]:
    """The password of a URL's ``user:password@``. Read in the text as written too (the
    scrubber's percent-escaped pass): a password holding ``%40`` or ``%3A`` is written
    escaped in its URL, and decoded it would end the user info at its own ``@``."""
    text = scan.text
    if "://" in text:
        for match in _URL_PASSWORD.finditer(text):
            if is_value(text, *match.span(1)):
                yield Hit(*match.span(1), REDACTED, "url_password", (SHAPE_PASS, 91))


def _login_arguments(scan: Scan) -> Iterator[Hit]:
    """The secret of a command's login step: the value of its ``-p`` or ``-t``, or an
    argument made like a token (letters and digits mixed, :data:`_LOGIN_TOKEN` long or
    more: ``cargo login <token>``), not a flag's value nor a flag."""
    text = scan.text
    for command in _LOGIN_COMMAND.finditer(text):  # a command is lowercase, a sentence not
        flag = ""
        for argument in _ARGUMENT.finditer(text, command.start(1), command.end(1)):
            value, span = argument.group(1), argument.span(1)
            if value.startswith("-"):
                flag = "" if "=" in value else value
                continue
            secret = flag in _LOGIN_SECRET_FLAGS or (
                not flag
                and len(value) >= _LOGIN_TOKEN
                and has_digit(value)
                and any(char.isalpha() for char in value)
                and not any(char in value for char in "./:@")  # a server, a path, a user@host
            )
            if secret and is_value(text, *span) and credential_like(value, relaxed=True):
                yield Hit(*span, REDACTED, "cli_password", (SHAPE_PASS, 93))
            flag = ""


def urls_and_commands(scan: Scan) -> Iterator[Hit]:
    """URL passwords, secret query parameters, ``curl -u``, ``--password``, netrc, pgpass."""
    text = scan.text
    yield from url_passwords(scan)
    if "=" in text:
        for match in _PARAMETER.finditer(text):
            name = match.group(1).lower()
            secret = name in _OAUTH_NAMES or is_secret_key(name)
            if secret and is_value(text, *match.span(2)) and len(match.group(2)) >= 4:
                yield Hit(match.start(1), match.end(2), REDACTED, "oauth_param", (SHAPE_PASS, 92))
    if "-u" in text or "--user" in text:
        for match in _CURL_USER.finditer(text):
            if is_value(text, *match.span(1)):
                yield Hit(*match.span(1), REDACTED, "cli_password", (SHAPE_PASS, 93))
    if "mysql" in scan.lower or "mariadb" in scan.lower:
        for match in _MYSQL_PASSWORD.finditer(text):
            yield Hit(*match.span(1), REDACTED, "cli_password", (SHAPE_PASS, 93))
    if "login" in scan.lower:
        yield from _login_arguments(scan)
    if "--" in text:
        for match in _FLAG.finditer(scan.lower):
            if is_value(text, *match.span(1)):
                yield Hit(*match.span(1), REDACTED, "cli_password", (SHAPE_PASS, 93))
    if "password" in scan.lower and _NETRC_LINE.search(scan.lower):
        for match in _NETRC_PASSWORD.finditer(scan.lower):
            if (is_value(text, *match.span(1)) and has_digit(match.group(1))) or len(
                match.group(1)
            ) >= 6:
                yield Hit(*match.span(1), REDACTED, "netrc", (SHAPE_PASS, 94))
    if text.count(":") >= 4:
        for match in _PGPASS.finditer(text):
            if is_value(text, *match.span(1)):
                yield Hit(*match.span(1), REDACTED, "pgpass", (SHAPE_PASS, 95))


# --- secrets said in words ---------------------------------------------------------------------

#: A noun that names a secret, in English and a few other languages.
_QUALIFIER = (
    r"(?:wi-?fi |wlan |router |network |door |gate |alarm |safe |locker |lock |bank |atm |"
    r"card |phone |sim |voicemail |admin |root |master |account |login |email |vpn |db |"
    r"database |one-time |verification |security |access |backup |recovery |2fa |mfa |"
    r"otp |sms |confirmation |unlock )?"
)
#: The word for a password in every language of :mod:`tinymemory_safety.secret_names`.
PASSWORD_NOUNS = frozenset(password_terms())
_NOUN = (
    r"(?P<noun>"
    + "".join(re.escape(term) + "|" for term in password_terms())
    + r"passwd|passphrase|pass phrase|passcode|pass code"
    r"|pin(?: code| number)?|otp|code|key|secret|token|contrase[ñn]a|clave|mot de passe|mdp"
    r"|kennwort|senha|wachtwoord|has[łl]o|parola|пароль|密码|密碼|パスワード|暗証番号|비밀번호)"
)
#: A noun that names a secret, maybe after a word saying whose ("wifi password").
SECRET_NOUN = _QUALIFIER + _NOUN
#: The noun alone opens the pattern (a literal, so ``re`` skips to it); the word before
#: it changes nothing the detector does.
_STATED = re.compile(
    r"(?a)" + _NOUN + r"(?: (?:for|of|to) [\w.@'-]{1,40}+(?: [\w.@'-]{1,40}+){0,2})?"
    r"(?P<verb> (?:is|was|has been|had been|will be|are|were)(?: now| still)?"
    r"(?: changed to| set to| updated to| reset to)? | changed to | set to | ist | es | est "
    r"| é | è | era | to | je | är | er | :|: | - |は|是|\uff1a| )"
    r"[\"'`“«]?"
)
#: Words that end such a sentence without a secret in it: "the password is required".
_STOP_VALUES = frozenset(
    {"a", "an", "the", "to", "in", "on", "at", "of", "for", "not", "too", "very", "now",
     "still", "being", "been", "required", "incorrect", "wrong", "invalid", "valid",
     "correct", "stored", "hashed", "encrypted", "set", "empty", "missing", "expired",
     "same", "different", "case", "sensitive", "optional", "mandatory", "weak", "strong",
     "long", "short", "ok", "okay", "fine", "here", "there", "below", "above", "shown",
     "displayed", "hidden", "secure", "safe", "good", "bad", "changed", "reset", "needed",
     "used", "sent", "shared", "saved", "that", "this", "it", "what", "which", "your",
     "my", "our", "their", "his", "her", "its", "and", "or", "but", "if", "when", "then",
     "also", "only", "just", "never", "always", "managed", "rotated", "generated", "unique",
     "simple", "easy", "hard", "known", "unknown", "public", "private", "available", "active",
     "inactive", "disabled", "enabled", "locked", "protected", "written", "kept", "printed",
     "logged", "leaked", "compromised", "obvious", "like", "something", "nothing", "anything",
     "one", "two", "all", "none", "no", "yes", "so", "as", "by", "with", "from", "into",
     "about", "over", "under", "after", "before", "because", "since", "until", "while",
     "where", "who", "how", "why", "was", "is", "are", "be", "has", "have", "had", "do",
     "does", "did", "can", "could", "will", "would", "should", "must", "may", "might",
     "ready", "done", "live", "merged", "clean", "broken", "fixed", "green", "red", "based",
     "here:", "below:", "following", "attached", "included", "same.", "null", "nil",
     "true", "false", "updated", "working", "correct.", "expired.", "valid.", "required."}
)  # fmt: skip
_CLAUSE = re.compile(r"(?a)[^\n.,;!?\"'`]{1,256}+")
_STATED_VALUE = re.compile(r"(?a)[^\s\"'`”»,;&()<>\[\]{}]{1,256}+")
#: Nouns whose value must carry a digit or look like a credential: "the key is to ship".
_LOOSE_NOUNS = frozenset({"code", "key", "secret", "token", "otp", "clave", "parola"})
#: Words before ``code`` that make it no secret: a zip code, an error code.
_NOT_SECRET_CODE = re.compile(
    r"(?a)(?:zip|postal|post|area|country|status|error|exit|return|source|http|response|"
    r"product|color|colour|dial|iso|language|region|currency|airport|promo|discount|"
    r"coupon|tax|hs|naics|sic|icd|cpt|swift|bank|sort|branch|qr|bar|morse|machine|"
    r"op|short|dialing|calling|access|activation|promotion|referral|invite|invitation) $"
)


#: A capital right after a small letter: a word of prose has none (it is lowercase,
#: capitalised or all capitals), a product's name one or two (``PowerShell``).
_CASE_TURN = re.compile(r"[a-z][A-Z]")
#: A symbol a password holds and a word does not.
_SYMBOL = re.compile(r"[!@#$%^&*+=~?]")


def _random_shaped(word: str) -> bool:
    """Whether a value after a bare password noun is made like one, not like a word of
    the sentence: letters and digits mixed, a symbol inside it, or more capitals after
    small letters than a product's name has (``lmzyLWkdEgvS``, not ``KeePassXC``)."""
    if any(char.isdigit() for char in word) and any(char.isalpha() for char in word):
        return len(word) >= 4
    inner = word.rstrip("!?.")
    return len(word) >= 6 and (
        _SYMBOL.search(inner) is not None or len(_CASE_TURN.findall(inner)) > 2
    )


def stated_secrets(scan: Scan) -> Iterator[Hit]:
    """A secret said in words: "my wifi password is hunter22", "PIN: 4821", "code 551 920"."""
    lower = scan.lower
    for match in _STATED.finditer(lower):
        if not scan.starts_word(match.start()) or lower[match.start() - 1 : match.start()] == "_":
            continue
        noun = match.group("noun")
        bare = match.group("verb") == " "
        if bare and noun not in {"pin", "pin code", "passcode", "otp", *PASSWORD_NOUNS}:
            continue  # a bare space only after a PIN-like noun ("PIN 4821") or a password's
        at = match.end()
        value = _STATED_VALUE.match(scan.text, at)
        if value is None:
            continue
        word = value.group().rstrip(".!?:")
        if bare and noun in PASSWORD_NOUNS and not _random_shaped(word):
            continue  # "password manager", "heslo pro": a word goes on the sentence
        if noun in {"passphrase", "pass phrase"}:  # a phrase: to the end of its clause
            word = _CLAUSE.match(scan.text, at).group().rstrip(" .!?:")  # type: ignore[union-attr]
        end = at + len(word)
        if not word or word.lower() in _STOP_VALUES or not is_value(scan.text, at, end):
            continue
        if noun == "key" and _VALUE_FIELD.match(scan.text, at):
            continue  # ``key: Authorization`` then ``value: …``: the key is a name
        if noun in _LOOSE_NOUNS or match.group("verb") == " ":
            noun_at = match.start("noun")
            if noun == "code" and _NOT_SECRET_CODE.search(lower[max(0, noun_at - 16) : noun_at]):
                continue
            if not (has_digit(word) and len(word) >= 4) and not credential_like(
                word, relaxed=False
            ):
                continue
            if noun in {"token", "key"} and not re.search("[A-Za-z]", word):
                continue  # "token: 2025-05-04" is a date
        elif len(word) < 4 and not has_digit(word):
            continue
        yield Hit(at, end, REDACTED, "stated_secret", (SHAPE_PASS, 110))
