"""What the ``tinymemory`` commands share: the table printer and every shared option.

``--at``/``--reach``, the filter options, ``--workspace``, ``--tag``,
``--kind``, ``--limit``, ``--cursor`` and ``--json`` are defined here once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import click

from tinymemory._errors import TinyMemoryError
from tinymemory._meta import ItemKind, MetaFilter
from tinymemory._namespace import Namespace, Reach

F = TypeVar("F", bound=Callable[..., Any])

#: How far from ``--at`` a read reaches, by ``--reach`` name.
REACHES: dict[str, Callable[[Namespace], Reach]] = {
    "of": Reach.of,
    "exact": Reach.exact,
    "subtree": Reach.subtree,
}


def items_text(count: int) -> str:
    """``count`` with ``item`` or ``items``, as a report says it (``1 item``, ``3 items``)."""
    return f"{count} item{'' if count == 1 else 's'}"


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


def engine_option() -> Callable[[F], F]:
    """``--engine ID`` (parameter ``engine_id``): a configured engine other than the default."""
    return click.option(
        "--engine",
        "engine_id",
        metavar="ID",
        help="The engine to open (default: the configured one, `sqlite` when none is).",
    )


def json_option(help: str = "Print JSON instead of text.") -> Callable[[F], F]:
    """``--json`` (parameter ``as_json``)."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def quiet_option(
    help: str = "Show no progress: no total, no status line, no per-entry lines.",
) -> Callable[[F], F]:
    """``-q/--quiet`` (parameter ``quiet``)."""
    return click.option("-q", "--quiet", is_flag=True, help=help)


def workspace_option(help: str) -> Callable[[F], F]:
    """``--workspace NAME`` (parameter ``workspace``)."""
    return click.option("--workspace", metavar="NAME", help=help)


def tags_option(help: str) -> Callable[[F], F]:
    """``--tag TAG``, repeatable (parameter ``tags``)."""
    return click.option("--tag", "tags", multiple=True, metavar="TAG", help=help)


def kinds_option(help: str) -> Callable[[F], F]:
    """``--kind document|conversation|learning``, repeatable (parameter ``kinds``)."""
    return click.option(
        "--kind",
        "kinds",
        multiple=True,
        type=click.Choice([kind.value for kind in ItemKind]),
        help=help,
    )


def filter_options(func: F) -> F:
    """Add ``--at``, ``--reach``, ``--workspace``, ``--tag``, ``--kind``; pass one ``filter``."""

    @functools.wraps(func)
    def with_filter(
        *args: Any,
        at: Namespace | None,
        reach_kind: str | None,
        workspace: str | None,
        tags: tuple[str, ...],
        kinds: tuple[str, ...],
        **kwargs: Any,
    ) -> Any:
        chosen = MetaFilter(
            reach=reach_from(at, reach_kind), workspace=workspace, tags_any=tags, kinds=kinds
        )
        return func(*args, filter=chosen, **kwargs)

    options = (
        at_option("Read the memory of this node (team:acme/agent:writer); default every node."),
        reach_option(),
        workspace_option("Only items of this workspace."),
        tags_option("Only items with this tag (repeat: any of them)."),
        kinds_option("Only items of this kind (repeat: any of them)."),
    )
    decorated: Callable[..., Any] = with_filter
    for option in reversed(options):
        decorated = option(decorated)
    return cast(F, decorated)


def limit_option(default: int, maximum: int | None = None) -> Callable[[F], F]:
    """``--limit N``, from 1 to ``maximum``, ``default`` when not given."""
    return click.option(
        "--limit",
        type=click.IntRange(min=1, max=maximum),
        default=default,
        show_default=True,
        help="Most results to show.",
    )


def cursor_option() -> Callable[[F], F]:
    """``--cursor`` (parameter ``cursor``): where a previous page left off."""
    return click.option("--cursor", help="Continue from the cursor a previous page gave.")
