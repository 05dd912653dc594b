"""Vendor tokens as a class: recall on invented vendors, precision on look-alikes drawn in bulk.

Draws (from a seed) tokens of vendors no catalogue names: a short prefix of
one to three parts and a separator, then a body of hex, base62, small letters
and digits, or several segments (an id and a secret, a UUID and two digests),
alone in a sentence, after a key, in a URL, and hard-wrapped across lines.
Beside them it draws look-alikes in bulk: identifiers of code, package names
and wheel files, changelogs with git hashes, UUIDs as plain ids, semantic
versions, file names with content hashes, CSS classes, cloud resource ids,
URLs of commits and assets, lockfile digests and documentation placeholders.

Each text is scrubbed by ``tinymemory_safety`` and, when it is installed, read
by detect-secrets' two high-entropy plugins (hex and base64, their default
limits; as it runs by default, strings in quotes only, or with ``--eager`` every
string); a token counts as found
when no piece of it is left, a look-alike as harmed when anything of it is
flagged. ``--seed 1`` is the draw the rule was written against; the held-out
seed 2 was committed with this script before it was first run.

    python benchmarks/vendor_token_bench.py [--seed 2] [--count 400] [--eager]
"""

# ruff: noqa: E501, SIM905  (the drawn texts are data, kept whole on their lines)
from __future__ import annotations

import argparse
import random
import string
import uuid
from collections import Counter
from collections.abc import Callable

from tinymemory_safety import SafetyScrubber

LOWER = string.ascii_lowercase
ALNUM = string.ascii_letters + string.digits
LOWER_DIGITS = LOWER + string.digits
HEX = "0123456789abcdef"
WORDS = (
    "user profile account order item cart price total count name value data list map "
    "config settings cache session client server request response handler manager "
    "service worker queue event message error status result report build deploy "
    "release test debug core utils helper model view controller router store index"
).split()


def draw(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


# --- tokens of invented vendors -----------------------------------------------------------------


def _prefix(rng: random.Random) -> str:
    head = draw(rng, "bcdfghjklmnpqrstvwxz", rng.randint(2, 3)) + draw(
        rng, LOWER, rng.randint(0, 3)
    )
    if rng.random() < 0.3:
        head = head.upper()
    parts = [head] + [rng.choice(["api", "live", "prd", "v1", "pat", "sk", "oat", "auth"])
                      for _ in range(rng.randint(0, 2))]  # fmt: skip
    separator = rng.choice("_-.")
    return separator.join(parts) + separator


def _body(rng: random.Random) -> str:
    shape = rng.randrange(6)
    inner = rng.choice("_-.")
    if shape == 0:
        return draw(rng, HEX, rng.choice([40, 48, 64]))
    if shape == 1:
        return draw(rng, ALNUM, rng.randint(32, 64))
    if shape == 2:
        return draw(rng, LOWER_DIGITS, rng.randint(32, 52))
    if shape == 3:
        return draw(rng, HEX, 16) + inner + draw(rng, HEX, 40)
    if shape == 4:
        return draw(rng, ALNUM, rng.randint(10, 16)) + inner + draw(rng, ALNUM, rng.randint(28, 40))
    return (
        str(uuid.UUID(int=rng.getrandbits(128)))
        + "."
        + draw(rng, HEX, 32)
        + "."
        + draw(rng, HEX, 32)
    )


def token(rng: random.Random) -> str:
    return _prefix(rng) + _body(rng)


def carriers(rng: random.Random, secret: str, lead: str) -> list[str]:
    width = rng.choice([48, 56, 64, 72, 80])
    line = "copy this one: " + secret
    room = width - len(lead)
    wrapped = "\n".join(lead + line[at : at + room] for at in range(0, len(line), room))
    return [
        f"deploy with {secret} today",
        f'client = Client(token="{secret}")',
        f"https://api.vendor.example/v1/hooks?x=1&auth={secret}",
        f"{lead}Hi team,\n{wrapped}\n{lead}Thanks",
    ]


# --- look-alikes ---------------------------------------------------------------------------------


def _identifier(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(3, 6))
    form = rng.randrange(4)
    if form == 0:
        return "_".join(words) + (f"_{rng.randint(1, 2024)}" if rng.random() < 0.5 else "")
    if form == 1:
        return words[0] + "".join(w.title() for w in words[1:]) + str(rng.randint(0, 99))
    if form == 2:
        return "-".join(words) + f"-{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    return "_".join(w.upper() for w in words)


LOOKALIKES: dict[str, Callable[[random.Random], str]] = {
    "identifier": lambda r: f"call {_identifier(r)}() then return {_identifier(r)}",
    "package": lambda r: (
        f"pip install {'-'.join(r.sample(WORDS, 3))}=={r.randint(0, 9)}.{r.randint(0, 30)}.{r.randint(0, 9)} "
        f"numpy-1.{r.randint(20, 26)}.{r.randint(0, 9)}-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    ),
    "changelog": lambda r: (
        f"- fix {r.choice(WORDS)} parsing ({draw(r, HEX, 7)})\n"
        f"commit {draw(r, HEX, 40)}\nMerge: {draw(r, HEX, 7)} {draw(r, HEX, 7)}\n"
        f"v{r.randint(1, 9)}.{r.randint(0, 9)}.{r.randint(0, 9)}-{r.randint(1, 99)}-g{draw(r, HEX, 12)}"
    ),
    "release_hash": lambda r: f"built release-{draw(r, HEX, 40)} from build_{draw(r, HEX, 40)}",
    "uuid": lambda r: (
        f"order-{uuid.UUID(int=r.getrandbits(128))} for user_{uuid.UUID(int=r.getrandbits(128)).hex} "
        f"id={uuid.UUID(int=r.getrandbits(128))}"
    ),
    "semver": lambda r: (
        f"bump to {r.randint(0, 9)}.{r.randint(0, 99)}.{r.randint(0, 99)}-rc.{r.randint(1, 9)}"
        f"+build.{r.randint(20200101, 20251231)}.{draw(r, HEX, 7)}"
    ),
    "file_name": lambda r: (
        f"dist/main.{draw(r, HEX, 20)}.js dist/vendor-{draw(r, HEX, 64)}.tar.gz "
        f"IMG_{r.randint(20200101, 20251231)}_{r.randint(100000, 235959)}.jpg "
        f"part-00000-{uuid.UUID(int=r.getrandbits(128))}-c000.snappy.parquet"
    ),
    "css": lambda r: (
        f'<div class="css-{draw(r, LOWER_DIGITS, 7)} Button_primary__{draw(r, ALNUM, 5)} '
        f'sc-{draw(r, string.ascii_letters, 6)} MuiButton-root-{r.randint(1, 999)}">'
    ),
    "cloud_id": lambda r: (
        f"i-0{draw(r, HEX, 16)} sg-0{draw(r, HEX, 16)} "
        f"api-{draw(r, LOWER_DIGITS, 10)}-{draw(r, LOWER_DIGITS, 5)} "
        f"/subscriptions/{uuid.UUID(int=r.getrandbits(128))}/resourceGroups/rg-{r.choice(WORDS)}"
    ),
    "url": lambda r: (
        f"https://github.com/{r.choice(WORDS)}/{r.choice(WORDS)}/commit/{draw(r, HEX, 40)} "
        f"https://cdn.example.com/assets/index-{draw(r, ALNUM, 8)}.{draw(r, HEX, 32)}.css "
        f"https://registry.npmjs.org/{r.choice(WORDS)}/-/{r.choice(WORDS)}-{r.randint(1, 9)}.0.{r.randint(0, 9)}.tgz"
    ),
    "lockfile": lambda r: (
        f'"integrity": "sha512-{draw(r, ALNUM, 86)}=="\n'
        f"--hash=sha256:{draw(r, HEX, 64)}\nsha1-{draw(r, HEX, 40)}\n"
        f"md5_{draw(r, HEX, 32)}"
    ),
    "docker": lambda r: (
        f"registry.example.com/{r.choice(WORDS)}/app:{r.randint(1, 9)}.{r.randint(0, 9)}-{draw(r, HEX, 7)} "
        f"image@sha256:{draw(r, HEX, 64)} layer_{draw(r, HEX, 64)}"
    ),
    "go_nix": lambda r: (
        f"v0.0.0-{r.randint(2019, 2025)}{r.randint(1, 12):02}{r.randint(1, 28):02}{r.randint(0, 23):02}{r.randint(0, 59):02}{r.randint(0, 59):02}-{draw(r, HEX, 12)} "
        f"/nix/store/{draw(r, '0123456789abcdfghijklmnpqrsvwxyz', 32)}-python3-3.{r.randint(8, 13)}.{r.randint(0, 9)}"
    ),
    "placeholder": lambda r: (
        f"{_prefix(r)}{'x' * r.randint(32, 48)} {_prefix(r)}<your-token> "
        f"{_prefix(r)}{'X' * 8}...{'X' * 8} {_prefix(r)}{'*' * 32}"
    ),
}


def _detect_secrets(*, eager: bool) -> Callable[[str], list[str]] | None:
    try:
        from detect_secrets.plugins.high_entropy_strings import (
            Base64HighEntropyString,
            HexHighEntropyString,
        )
    except ImportError:
        return None
    plugins = (HexHighEntropyString(), Base64HighEntropyString())

    def flagged(text: str) -> list[str]:
        found = []
        for number, line in enumerate(text.splitlines(), 1):
            for plugin in plugins:
                found += [
                    secret.secret_value or ""
                    for secret in plugin.analyze_line(
                        filename="notes.txt",
                        line=line,
                        line_number=number,
                        enable_eager_search=eager,
                    )
                ]
        return found

    return flagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument(
        "--eager", action="store_true", help="detect-secrets reads unquoted strings too"
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scrub = SafetyScrubber().scrub_text
    other = _detect_secrets(eager=args.eager)
    found: Counter[str] = Counter()
    other_found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for _ in range(args.count):
        secret = token(rng)
        lead = rng.choice(["", "> ", "# ", "// "])
        for kind, text in zip(
            ("prose", "code", "url", "wrapped"), carriers(rng, secret, lead), strict=True
        ):
            total[kind] += 1
            out = scrub(text).text
            # Lines joined again (a wrapped token's pieces read as one), then no eight
            # characters of the token may be left.
            joined = "".join(line.removeprefix(lead) for line in out.split("\n"))
            if not any(secret[at : at + 8] in joined for at in range(len(secret) - 7)):
                found[kind] += 1
            if (
                other is not None
                and kind != "wrapped"
                and any(secret[-12:] in value for value in other(text))
            ):
                other_found[kind] += 1
    print(f"tokens of invented vendors (seed {args.seed})      scrubber   detect-secrets")
    for kind in total:
        theirs = f"{other_found[kind]}/{total[kind]}" if other and kind != "wrapped" else "-"
        print(f"  {kind:<10} {found[kind]:>5}/{total[kind]:<5} {theirs:>16}")
    harmed: Counter[str] = Counter()
    other_harmed: Counter[str] = Counter()
    drawn: Counter[str] = Counter()
    for _ in range(args.count // 4):
        for family, make in LOOKALIKES.items():
            text = make(rng)
            drawn[family] += 1
            if scrub(text).text != text:
                harmed[family] += 1
            if other is not None and other(text):
                other_harmed[family] += 1
    print("look-alikes altered (texts)          scrubber   detect-secrets")
    for family in drawn:
        theirs = f"{other_harmed[family]}/{drawn[family]}" if other else "-"
        print(f"  {family:<14} {harmed[family]:>5}/{drawn[family]:<5} {theirs:>16}")
    all_harmed = sum(harmed.values())
    print(f"  {'all':<14} {all_harmed:>5}/{sum(drawn.values()):<5}", end="")
    print(f" {sum(other_harmed.values()):>12}/{sum(drawn.values())}" if other else "")


if __name__ == "__main__":
    main()
