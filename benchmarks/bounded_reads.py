"""Print what refusing an oversized input costs, beside what reading it whole costs.

Two inputs, each measured in a child process of its own (seconds, and how far
the child's peak resident memory rose above where it stood before the call):

- a 1 GiB sparse file: ``tinymemory.convert(path)`` (refused by its size),
  beside the floor ``Path.read_bytes()`` (what reading it whole costs, as
  ``convert`` did before it checked the size first);
- a DOCX of ``--xml-mb`` MB of XML (Zipf words, about 4 to 1 compressed,
  under every limit of its zip directory): ``tinymemory.convert`` with the
  documents plugin (refused by its XML limits), beside the floor of inflating
  its ``word/document.xml`` whole with ``zipfile`` (less than any parser must
  do), and python-docx opening it (what parsing it costs).

    python benchmarks/bounded_reads.py [--xml-mb 60]

Needs ``tinymemory-documents[office]`` installed.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import random
import string
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
import docx, tinymemory as tm, zipfile
tm.convert(b"warm up", name="a.txt")
kind, path = sys.argv[1], sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
outcome = "read"
try:
    if kind == "convert":
        tm.convert(path)
    elif kind == "read_bytes":
        Path(path).read_bytes()
    elif kind == "inflate":
        zipfile.ZipFile(path).read("word/document.xml")
    else:
        docx.Document(path)
except tm.TinyMemoryError as error:
    outcome = type(error).__name__
seconds = time.perf_counter() - start
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps([outcome, seconds, grown]))
"""

DOCX_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-'
        'package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.wordprocessingml.document.main+xml"/></Types>'
    ),
    "_rels/.rels": (
        '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/'
        '2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
        'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>'
        "</Relationships>"
    ),
}


def xml_heavy_docx(megabytes: int) -> bytes:
    """A DOCX whose body is ``megabytes`` MB of paragraphs of Zipf-drawn words."""
    rng = random.Random(7)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 7))) for _ in range(200)]
    weights = list(itertools.accumulate(1 / rank for rank in range(1, len(words) + 1)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        for name, text in DOCX_PARTS.items():
            package.writestr(name, text)
        with package.open("word/document.xml", "w", force_zip64=True) as part:
            part.write(
                b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                b'wordprocessingml/2006/main"><w:body>'
            )
            written = 0
            while written < megabytes * 1_000_000:
                text = " ".join(rng.choices(words, cum_weights=weights, k=10_000)).encode()
                chunk = b"<w:p><w:r><w:t>" + text + b"</w:t></w:r></w:p>"
                part.write(chunk)
                written += len(chunk)
            part.write(b"</w:body></w:document>")
    return out.getvalue()


def measured(kind: str, path: Path) -> tuple[str, float, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, kind, str(path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    outcome, seconds, grown = json.loads(done.stdout.splitlines()[-1])
    return outcome, seconds, grown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xml-mb", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        huge = Path(folder) / "huge.txt"
        with huge.open("wb") as handle:
            handle.truncate(1024**3)
        heavy = Path(folder) / "heavy.docx"
        heavy.write_bytes(xml_heavy_docx(args.xml_mb))
        print(f"{'input':<34} {'call':<24} {'outcome':<15} {'seconds':>8} {'peak MB':>8}")
        rows = [
            ("1 GiB sparse file", "tinymemory.convert", "convert", huge),
            ("", "floor: read_bytes", "read_bytes", huge),
            (
                f"DOCX {heavy.stat().st_size / 1e6:.1f} MB, {args.xml_mb} MB XML",
                "tinymemory.convert",
                "convert",
                heavy,
            ),
            ("", "floor: inflate the part", "inflate", heavy),
            ("", "python-docx opens it", "docx", heavy),
        ]
        for label, call, kind, path in rows:
            outcome, seconds, grown = measured(kind, path)
            print(f"{label:<34} {call:<24} {outcome:<15} {seconds:>8.3f} {grown:>8.0f}")


if __name__ == "__main__":
    main()
