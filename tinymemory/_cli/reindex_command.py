"""``tinymemory reindex``: re-embed the configured memory, with a progress bar, resumably."""

from __future__ import annotations

import contextlib
import sys
import warnings
from typing import Any

import attrs
import click

from tinymemory._embedder_choice import KeptEmbedderWarning, embedder_identity
from tinymemory._engine import MemoryEngine
from tinymemory._errors import Unsupported
from tinymemory._hookspecs import Reindexer
from tinymemory._plugin_manager import default_embedder, embedder_named
from tinymemory._registry import MemoryConfig, build_engine
from tinymemory._settings import EngineCredential


def reindexer_of(engine: MemoryEngine) -> Reindexer:
    """``engine`` as a :class:`Reindexer`; ``Unsupported`` when it cannot re-embed its memory."""
    if not isinstance(engine, Reindexer):
        raise Unsupported(
            f"engine `{engine.descriptor.id}` cannot re-embed its memory (it has no `reindex`)"
        )
    return engine


@click.command("reindex")
@click.option(
    "--embedder",
    "name",
    metavar="NAME",
    help="The embedder to re-embed with (default: the one the engine's settings name, else "
    "the default embedder).",
)
@click.option(
    "--batch-size",
    default=256,
    show_default=True,
    type=click.IntRange(1),
    help="About how many pieces are embedded and committed at a time.",
)
def reindex_command(name: str | None, batch_size: int) -> None:
    """Re-embed every item of the configured memory and record the embedder as its own.

    Each batch is committed as it goes: interrupted (Ctrl-C, a crash), nothing
    is lost, and running the command again continues where it stopped. Reads
    keep using the old vectors until the last batch is in. With --embedder,
    set `embedder = "NAME"` in the engine's settings afterwards.
    """
    config = MemoryConfig.load()
    settings = config.settings_for(config.engine)
    if name is not None:
        settings = attrs.evolve(settings, options={**settings.options, "embedder": name})
    named = name or settings.options.get("embedder")
    embedder = default_embedder() if named is None else embedder_named(named)
    # Nothing is stored, so nothing is scrubbed: the bare engine, which may reindex. The
    # notice that a memory keeps the embedder it was filled with is this command's cue.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KeptEmbedderWarning)
        opened = build_engine(config.engine, settings, EngineCredential.from_env(), scrub=False)
    with (
        opened as engine,
        contextlib.ExitStack() as stack,
    ):
        bars: list[Any] = []  # the bar, drawn from the first batch on when stderr is a terminal

        def progress(done: int, total: int) -> None:
            if not sys.stderr.isatty():
                return
            if not bars:
                bar = click.progressbar(
                    length=total, label="reindexing", show_pos=True, file=sys.stderr
                )
                bars.append(stack.enter_context(bar))
            bars[0].length = total
            bars[0].update(done - bars[0].pos)

        report = reindexer_of(engine).reindex(embedder, batch_size=batch_size, progress=progress)
    earlier = f" ({report.earlier} done by an earlier run)" if report.earlier else ""
    click.echo(
        f"reindexed {report.items} of {report.total} items{earlier} with "
        f"{embedder_identity(embedder)}"
    )
