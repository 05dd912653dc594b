"""Migrate a v1 TinyCortex workspace into any TinyMemory engine, resumably.

::

    from tinymemory_legacy_import import LegacyWorkspace, migrate

    with LegacyWorkspace.open("~/old-workspace") as workspace:
        report = migrate(engine, workspace)

:class:`LegacyWorkspace` detects and reads the workspace (read-only);
:func:`migrate` / :func:`migrate_with` store its items in batches and return a
:class:`MigrationReport`; a :class:`Checkpoint` makes the work resumable.
The ``tinymemory import-v1`` command does the same from the command line.
"""

from __future__ import annotations

from .checkpoint import SECTIONS, Checkpoint, ChunkCursor
from .errors import LegacyReadError, MigrationFailed, NotLegacy
from .migration import MigrationReport, OnBatch, SkippedItem, migrate, migrate_with
from .workspace import ImportedItem, LegacyWorkspace

__all__ = [
    "SECTIONS",
    "Checkpoint",
    "ChunkCursor",
    "ImportedItem",
    "LegacyReadError",
    "LegacyWorkspace",
    "MigrationFailed",
    "MigrationReport",
    "NotLegacy",
    "OnBatch",
    "SkippedItem",
    "migrate",
    "migrate_with",
]
