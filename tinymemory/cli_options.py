"""Helpers the ``tinymemory`` commands share: tables, ``--at``/``--reach`` and ``--json``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from tinymemory.errors import TinyMemoryError
from tinymemory.namespace import Namespace, Reach

F = TypeVar("F", bound=Callable[..., Any])

#: How far from ``--at`` a read reaches, by ``--reach`` name.
REACHES: dict[str, Callable[[Namespace], Reach]] = {
    "of": Reach.of,
    "exact": Reach.exact,
    "subtree": Reach.subtree,
}


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Rows under their headers, each column as wide as its widest cell."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    ]
    return "\n".join(lines)


def parse_namespace(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> Namespace | None:
    """Click callback: a written namespace path, refused as a usage error when malformed."""
    if value is None:
        return None
    try:
        return Namespace.parse(value)
    except TinyMemoryError as error:
        raise click.BadParameter(error.message) from None


def at_option(help: str, *, required: bool = False) -> Callable[[F], F]:
    """``--at NAMESPACE``, read into a :class:`Namespace` (parameter ``at``)."""
    return click.option(
        "--at",
        "at",
        callback=parse_namespace,
        metavar="NAMESPACE",
        required=required,
        help=help,
    )


def reach_option() -> Callable[[F], F]:
    """``--reach of|exact|subtree`` (parameter ``reach_kind``); see :func:`reach_from`."""
    return click.option(
        "--reach",
        "reach_kind",
        type=click.Choice(sorted(REACHES)),
        help="How far from --at to read: of (it and its ancestors, the default), exact, subtree.",
    )


def reach_from(at: Namespace | None, reach_kind: str | None) -> Reach | None:
    """The reach ``--at``/``--reach`` name: none when neither is given, else ``of`` at the root."""
    if at is None and reach_kind is None:
        return None
    return REACHES[reach_kind or "of"](at or Namespace.ROOT)


def json_option(help: str = "Print JSON instead of text.") -> Callable[[F], F]:
    """``--json`` (parameter ``as_json``)."""
    return click.option("--json", "as_json", is_flag=True, help=help)
