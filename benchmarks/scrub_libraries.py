"""Print how maintained libraries do on round three's classes, beside the safety plugin.

- ``phonenumbers``' ``PhoneNumberMatcher`` (what Presidio's PhoneRecognizer
  runs) on the ``phone_region`` class: with the default region alone, with
  Presidio's default regions, and with every region; and how many of 200
  seeded 1 KB prose items (numbers, dates, no phone) each calls a phone.
- ``detect-secrets`` (its default plugins and filters, each case scanned as
  a file) on every class: recall on positives, look-alikes left alone. It is
  not a dependency of the project: install it to see its row
  (``pip install detect-secrets``); without it the script says so.

    python benchmarks/scrub_libraries.py
"""

from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import phonenumbers
from scrub_bench import CORPORA, prose

from tinymemory_safety import SafetyScrubber

#: The regions Presidio's PhoneRecognizer tries by default.
PRESIDIO_REGIONS = ("US", "UK", "DE", "FE", "IL", "IN", "CA", "BR")


def matcher(regions: tuple[str, ...]) -> Callable[[str], list[str]]:
    def find(text: str) -> list[str]:
        return [
            match.raw_string
            for region in regions
            for match in phonenumbers.PhoneNumberMatcher(
                text, region, leniency=phonenumbers.Leniency.VALID
            )
        ]

    return find


def phones(data: dict[str, Any], texts: list[str]) -> None:
    scrub = SafetyScrubber().scrub_text
    every = tuple(sorted(phonenumbers.SUPPORTED_REGIONS))
    ways: dict[str, Callable[[str, str], bool]] = {}
    for name, regions in [("US", ("US",)), ("Presidio's", PRESIDIO_REGIONS), ("all", every)]:
        find = matcher(regions)
        ways[f"matcher, {name}"] = lambda text, secret, find=find: any(
            secret in got for got in find(text)
        )
    ways["tinymemory-safety"] = lambda text, secret: secret not in scrub(text).text
    print(f"{'phone_region':<28}{'dev':>8}{'heldout':>10}   prose items given a false phone")
    cases = [case for case in data["positives"] if case["class"] == "phone_region"]
    for name, caught in ways.items():
        total: Counter[str] = Counter()
        found: Counter[str] = Counter()
        for case in cases:
            total[case["split"]] += 1
            found[case["split"]] += caught(case["text"], case["must_redact"][0])
        false = sum(caught(text, "") for text in texts) if "matcher" in name else None
        if false is None:
            false = sum("PHONE" in scrub(text).text for text in texts)
        print(
            f"{name:<28}{found['dev']:>4}/{total['dev']:<3}{found['heldout']:>6}/{total['heldout']:<3}"
            f"   {false}/{len(texts)}"
        )


def detect_secrets_row(data: dict[str, Any]) -> None:
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        print("\ndetect-secrets is not installed: pip install detect-secrets to see its row")
        return

    def found(text: str, folder: Path) -> list[str]:
        path = folder / "case.txt"
        path.write_text(text, encoding="utf-8")
        secrets = SecretsCollection()
        secrets.scan_file(str(path))
        return [secret.secret_value for _, secret in secrets if secret.secret_value]

    total: Counter[tuple[str, str]] = Counter()
    good: Counter[tuple[str, str]] = Counter()
    with default_settings(), tempfile.TemporaryDirectory() as folder:
        for case in data["positives"]:
            values = found(case["text"], Path(folder))
            key = (case["class"], case["split"])
            for secret in case["must_redact"]:
                total[key] += 1
                good[key] += any(secret in value for value in values)
        for case in data["negatives"]:
            key = (case["class"], case["split"])
            total[key] += 1
            good[key] += not found(case["text"], Path(folder))
    print("\ndetect-secrets (defaults), per class: positives found / look-alikes left alone")
    for klass in sorted({klass for klass, _ in total}):
        dev, held = (klass, "dev"), (klass, "heldout")
        print(f"  {klass:<24}{good[dev]:>4}/{total[dev]:<4}{good[held]:>6}/{total[held]:<4}")


def main() -> None:
    data = json.loads((CORPORA / "scrub-cases-classes.json").read_text(encoding="utf-8"))
    rng = random.Random(7)
    texts = [prose(rng, 1024) for _ in range(200)]
    phones(data, texts)
    detect_secrets_row(data)


if __name__ == "__main__":
    main()
