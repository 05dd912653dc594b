"""Copying a workspace into any engine: ``migrate`` and ``migrate_with``.

Items stream from the checkpoint given; each batch of up to
``MAX_STORE_MANY`` of them goes to :func:`tinymemory.sync`,
which makes one ``store_many`` call of the valid ones and reports any the
contract refuses (an item over the size caps, say) as skipped. A failed
``store_many`` is :class:`MigrationFailed` carrying the last committed
checkpoint; resuming from it re-sends that batch, whose stored items come back
as replays. A read failure is raised as it is, and that batch is not sent.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping

import attrs

from tinymemory import MAX_STORE_MANY, InvalidRequest, MemoryEngine, TinyMemoryError, sync

from .checkpoint import SECTIONS, Checkpoint
from .errors import MigrationFailed
from .workspace import ImportedItem, LegacyWorkspace


@attrs.frozen(kw_only=True)
class SkippedItem:
    """An item the contract refused (``store_many`` never saw it): where it came from, and why."""

    section: str
    legacy_id: str
    reason: str


def _no_sections() -> dict[str, int]:
    return dict.fromkeys(SECTIONS, 0)


@attrs.frozen(kw_only=True)
class MigrationReport:
    """What a migration did.

    ``stored`` items were new to the engine and ``replayed`` ones already held;
    ``batches`` counts ``store_many`` calls; ``checkpoint`` is the committed one
    (resume from it); ``sections`` counts the items read per section and
    ``skipped`` lists the ones the contract refused.
    """

    stored: int = 0
    replayed: int = 0
    batches: int = 0
    checkpoint: Checkpoint = attrs.field(factory=Checkpoint)
    sections: Mapping[str, int] = attrs.field(factory=_no_sections, hash=False)
    skipped: tuple[SkippedItem, ...] = ()


#: Called after every stored batch with the report so far; persist ``report.checkpoint``.
OnBatch = Callable[[MigrationReport], None]


def migrate(
    engine: MemoryEngine, workspace: LegacyWorkspace, from_: Checkpoint | None = None
) -> MigrationReport:
    """Copy ``workspace`` into ``engine`` from ``from_`` (default: the start); see migrate_with."""
    return migrate_with(engine, workspace, from_, None)


def migrate_with(
    engine: MemoryEngine,
    workspace: LegacyWorkspace,
    from_: Checkpoint | None,
    on_batch: OnBatch | None,
) -> MigrationReport:
    """Copy ``workspace`` into ``engine`` in batches of at most ``MAX_STORE_MANY``.

    ``on_batch`` is called after every batch with the report so far, whose
    ``checkpoint`` is the committed one. A failed ``store_many`` raises
    :class:`MigrationFailed` with the last committed checkpoint (``from_`` or
    the start when none was); a :class:`LegacyReadError` is raised as it is.
    An empty workspace returns zeros without calling the engine. Pass an
    engine from :func:`tinymemory.build_engine`, which scrubs what it stores.
    """
    if not isinstance(engine, MemoryEngine):
        raise InvalidRequest(f"`engine` must be a MemoryEngine, not {type(engine).__name__}")
    if not isinstance(workspace, LegacyWorkspace):
        raise InvalidRequest(
            f"`workspace` must be a LegacyWorkspace, not {type(workspace).__name__}"
        )
    if from_ is not None and not isinstance(from_, Checkpoint):
        raise InvalidRequest("`from_` must be a Checkpoint or None")
    if on_batch is not None and not callable(on_batch):
        raise InvalidRequest("`on_batch` must be callable")
    report = MigrationReport(checkpoint=from_ or Checkpoint())
    # One stream serves every batch. After a stored batch it goes on exactly as
    # a fresh items_from(committed) would (the workspace is only read, and each
    # page is a query of its own), and a failure ends the migration, so resuming
    # from the committed checkpoint re-sends exactly the failed batch. Opening a
    # fresh stream per batch (the Rust importer's way, trap T16) would re-scan,
    # at every batch, the rows of each section that has yielded nothing yet:
    # quadratic in a store of many `event:*` rows, say.
    stream = workspace.items_from(report.checkpoint)
    try:
        attempt = 0
        while batch := list(itertools.islice(stream, MAX_STORE_MANY)):
            attempt += 1
            report = _store(engine, batch, report, attempt)
            if on_batch is not None:
                on_batch(report)
    finally:
        stream.close()
    return report


def _store(
    engine: MemoryEngine, batch: list[ImportedItem], report: MigrationReport, attempt: int
) -> MigrationReport:
    """Store one batch through ``sync``; the report after it, or ``MigrationFailed``."""
    try:
        stored = sync(engine, [imported.item for imported in batch])
    except TinyMemoryError as error:
        raise MigrationFailed(
            f"store_many failed on batch {attempt} ({error}); "
            "resume from the checkpoint this error carries",
            checkpoint=report.checkpoint,
            cause=error,
        ) from error
    sections = dict(report.sections)
    for imported in batch:
        sections[imported.section] += 1
    skipped = tuple(
        SkippedItem(
            section=batch[refused.index].section,
            legacy_id=str(batch[refused.index].item.meta.source.id),
            reason=refused.reason,
        )
        for refused in stored.skipped
    )
    return MigrationReport(
        stored=report.stored + stored.stored,
        replayed=report.replayed + stored.replayed,
        batches=report.batches + stored.batches,
        checkpoint=batch[-1].checkpoint,
        sections=sections,
        skipped=(*report.skipped, *skipped),
    )
