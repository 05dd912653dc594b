"""The plugin's command: ``tinymemory scrub``, a text as the installed scrubber would store it.

It stores nothing: it shows what would be redacted (stdout holds only the
scrubbed text, the counts go to stderr), so a host can check a file or a
pipe before it reaches memory, under the same policy the engines use.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from tinymemory.plugin import canonical_json, plugin_settings
from tinymemory_safety.policy import installed_policy
from tinymemory_safety.scrubber import SafetyScrubber


@click.command("scrub")
@click.argument("text", required=False)
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Scrub this UTF-8 file instead of TEXT.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON: the text and its counts.")
def scrub_command(text: str | None, path: Path | None, as_json: bool) -> None:
    """Print TEXT (- reads stdin) with its secrets and personal data redacted; stores nothing."""
    if (text is None) == (path is None):
        raise click.UsageError("pass TEXT (- for stdin) or --file, one of them")
    if path is not None:
        try:
            content = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise click.UsageError(f"cannot read {path} as UTF-8 text: {error}") from None
    else:
        content = sys.stdin.read() if text == "-" else str(text)
    result = SafetyScrubber(installed_policy(plugin_settings("safety"))).scrub_text(content)
    counts = result.redactions
    if as_json:
        data = {"text": result.text, "redactions": dict(counts.by_class), "total": counts.total}
        click.echo(canonical_json(data))
        return
    click.echo(result.text, nl=not result.text.endswith("\n"))
    click.echo(f"{counts.total} redactions: {counts}", err=True)
