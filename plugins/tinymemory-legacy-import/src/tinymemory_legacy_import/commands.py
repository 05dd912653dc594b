"""``tinymemory import-v1 PATH``: migrate a v1 workspace into the configured engine.

With ``--checkpoint FILE`` the committed checkpoint is written to FILE
(atomically: a temporary file renamed over it) after every batch, and a run
that finds FILE resumes from it. The file also names the workspace, so it is
never applied to another one. ``--dry-run`` reads and counts without building
an engine.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import click

from tinymemory import EngineCredential, InvalidRequest, MemoryConfig, TinyMemoryError
from tinymemory.files import replacing
from tinymemory.plugin import canonical_json

from .checkpoint import SECTIONS, Checkpoint
from .errors import MigrationFailed
from .migration import MigrationReport, migrate_with
from .workspace import LegacyWorkspace


class CommandFailure(click.ClickException):
    """A TinyMemoryError met by the command, shown as ``tinymemory: <kind>: <message>``."""

    def __init__(self, error: TinyMemoryError) -> None:
        super().__init__(str(error))

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the error on stderr."""
        click.echo(f"tinymemory: {self.format_message()}", file=file, err=True)


@click.command("import-v1")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--checkpoint",
    "checkpoint_file",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write the checkpoint here after every batch; resume from it when it exists.",
)
@click.option("--dry-run", is_flag=True, help="Read and count the items; store nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def import_v1_command(
    path: Path, checkpoint_file: Path | None, dry_run: bool, as_json: bool
) -> None:
    """Migrate the v1 (TinyCortex) workspace at PATH into the configured engine.

    Documents, chunk sources, conversations, learnings and profile facets are
    stored in batches; re-running replays what is already stored.
    """
    try:
        if checkpoint_file is not None and not checkpoint_file.resolve().parent.is_dir():
            raise InvalidRequest(f"checkpoint file `{checkpoint_file}`: its folder does not exist")
        with LegacyWorkspace.open(path) as workspace:
            start = _read_checkpoint(checkpoint_file, workspace) if checkpoint_file else None
            if dry_run:
                _show_dry_run(workspace.count(start), start, as_json)
                return
            report = _migrate(workspace, start, checkpoint_file)
    except MigrationFailed as failure:
        hint = (
            f"run the same command again to resume from `{checkpoint_file}`"
            if checkpoint_file
            else "a new run replays what was stored; pass --checkpoint FILE to resume instead"
        )
        click.echo(f"tinymemory: {hint}", err=True)
        raise CommandFailure(failure) from None
    except TinyMemoryError as error:
        raise CommandFailure(error) from None
    _show_report(report, checkpoint_file, as_json)


def _migrate(
    workspace: LegacyWorkspace, start: Checkpoint | None, checkpoint_file: Path | None
) -> MigrationReport:
    with (
        MemoryConfig.load().build(EngineCredential.from_env()) as engine,
        _bar(workspace, start) as advance,
    ):

        def committed(report: MigrationReport) -> None:
            if checkpoint_file is not None:
                _write_checkpoint(checkpoint_file, workspace, report.checkpoint)
            advance(sum(report.sections.values()))

        return migrate_with(engine, workspace, start, committed)


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


@contextlib.contextmanager
def _bar(workspace: LegacyWorkspace, start: Checkpoint | None) -> Iterator[Any]:
    """A progress bar on stderr when it is a terminal; yields ``advance(items done so far)``."""
    if not _stderr_is_terminal():
        yield lambda done: None
        return
    total = sum(workspace.count(start).values())  # a read-only pass, so the bar has an end
    with click.progressbar(length=total, label="importing", show_pos=True, file=sys.stderr) as bar:
        shown = 0

        def advance(done: int) -> None:
            nonlocal shown
            bar.update(done - shown)
            shown = done

        yield advance


def _read_checkpoint(file: Path, workspace: LegacyWorkspace) -> Checkpoint | None:
    """The checkpoint ``file`` holds for this workspace; ``None`` when there is no file yet."""
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidRequest(f"checkpoint file `{file}` cannot be read: {error}") from None
    try:
        saved = json.loads(text)
    except ValueError:
        raise InvalidRequest(f"checkpoint file `{file}` is not json") from None
    if not isinstance(saved, dict) or "checkpoint" not in saved:
        raise InvalidRequest(f"checkpoint file `{file}` holds no checkpoint")
    if saved.get("workspace") != workspace.path:
        raise InvalidRequest(
            f"checkpoint file `{file}` belongs to the workspace `{saved.get('workspace')}`, "
            f"not `{workspace.path}`"
        )
    try:
        return Checkpoint.from_data(saved["checkpoint"])
    except InvalidRequest as error:
        raise InvalidRequest(f"checkpoint file `{file}`: {error.message}") from None


def _write_checkpoint(file: Path, workspace: LegacyWorkspace, checkpoint: Checkpoint) -> None:
    """Replace ``file`` with the checkpoint, whole or not at all."""
    data = {"workspace": workspace.path, "checkpoint": checkpoint.to_data()}
    try:
        with replacing(file) as handle:
            json.dump(data, handle, ensure_ascii=False)
    except InvalidRequest as error:
        raise InvalidRequest(f"checkpoint file {error.message}") from None


def _section_table(counts: dict[str, int], skipped: dict[str, int]) -> str:
    width = max(len(section) for section in SECTIONS)
    lines = [f"{'section':<{width}}  {'items':>7}  {'skipped':>7}"]
    lines += [
        f"{section:<{width}}  {counts.get(section, 0):>7}  {skipped.get(section, 0):>7}"
        for section in SECTIONS
    ]
    return "\n".join(lines)


def _show_dry_run(counts: dict[str, int], start: Checkpoint | None, as_json: bool) -> None:
    total = sum(counts.values())
    if as_json:
        click.echo(canonical_json({"dry_run": True, "sections": counts, "items": total}))
        return
    click.echo(_section_table(counts, {}))
    where = "after the checkpoint" if start is not None else "in the workspace"
    click.echo(f"dry run: {total} items {where}, nothing stored")


def _show_report(report: MigrationReport, checkpoint_file: Path | None, as_json: bool) -> None:
    skipped: dict[str, int] = {}
    for item in report.skipped:
        skipped[item.section] = skipped.get(item.section, 0) + 1
    if as_json:
        data = {
            "sections": dict(report.sections),
            "stored": report.stored,
            "replayed": report.replayed,
            "batches": report.batches,
            "skipped": [
                {"section": s.section, "legacy_id": s.legacy_id, "reason": s.reason}
                for s in report.skipped
            ],
            "checkpoint": report.checkpoint.to_data(),
        }
        click.echo(canonical_json(data))
        return
    click.echo(_section_table(dict(report.sections), skipped))
    total = sum(report.sections.values())
    click.echo(
        f"imported {total} item{'' if total == 1 else 's'} in {report.batches} "
        f"batch{'' if report.batches == 1 else 'es'}: "
        f"{report.stored} stored, {report.replayed} replayed, {len(report.skipped)} skipped"
    )
    for item in report.skipped:
        click.echo(f"skipped {item.legacy_id}: {item.reason}")
    if checkpoint_file is not None:
        click.echo(f"checkpoint: {checkpoint_file}")
