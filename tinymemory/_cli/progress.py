"""What a long command (``ingest``, ``import``, ``export``) shows while it works.

On a terminal, one status line on stderr kept up to date: the count done,
the total when known, and the entry at hand; the command's own lines go to
stdout above it as they happen. On a pipe there is no status line: the
total is said once on stderr at the start, the per-entry lines stream on
stdout, and a command with no per-entry lines says how far it got on
stderr after each batch. ``--quiet`` silences all of it.
"""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

import click

#: The longest name the status line shows, from its end (a path's end says most).
_NAME_WIDTH = 60


class Progress:
    """Progress of ``label`` over ``total`` entries (``None`` when unknown), shown on ``stream``."""

    def __init__(
        self,
        label: str,
        total: int | None,
        *,
        quiet: bool = False,
        terminal: bool | None = None,
        stream: TextIO | None = None,
        unit: str = "entries",
    ) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.unit = unit
        self._shown = False
        self._last: str | None = None

    def start(self) -> None:
        """Say the total, once, before the work starts."""
        if self.quiet:
            return
        if self.total is not None:
            click.echo(f"{self.label}: {_counted(self.total, self.unit)}", file=self.stream)
        self._draw(None)

    def advance(self, name: str | None = None, count: int = 1) -> None:
        """``count`` more entries done, the last of them ``name``."""
        self.done += count
        self._draw(name)

    def line(self, text: str) -> None:
        """One of the command's own lines, on stdout, as it happens."""
        if self.quiet:
            return
        self._clear()
        click.echo(text)
        sys.stdout.flush()
        self._draw(self._last)

    def batch_done(self) -> None:
        """On a pipe, how far it got (for commands with no per-entry lines)."""
        if self.quiet or self.terminal:
            return
        if self.total is None:
            said = _counted(self.done, self.unit)
        else:
            said = f"{self.done:,} of {_counted(self.total, self.unit)}"
        click.echo(f"{self.label}: {said}", file=self.stream)

    def finish(self) -> None:
        """Take the status line away."""
        self._clear()

    def _draw(self, name: str | None) -> None:
        if self.quiet or not self.terminal:
            return
        self._last = name
        # An archive read member by member yields more entries than the walk counted.
        of = f"/{max(self.total, self.done):,}" if self.total is not None else ""
        status = f"{self.label} [{self.done:,}{of}]"
        if name:
            width = min(_NAME_WIDTH, shutil.get_terminal_size().columns - len(status) - 2)
            shown = name if len(name) <= width else "…" + name[-max(width - 1, 1) :]
            status = f"{status} {shown}"
        self.stream.write("\r\x1b[K" + status)
        self.stream.flush()
        self._shown = True

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def _counted(number: int, unit: str) -> str:
    """``number`` and ``unit`` (a plural: "items", "entries"), singular for one."""
    if number == 1:
        unit = unit[:-3] + "y" if unit.endswith("ies") else unit.removesuffix("s")
    return f"{number:,} {unit}"
