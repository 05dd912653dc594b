"""The importer's errors, each a kind of the contract's errors.

- :class:`NotLegacy`: the path is no v1 workspace (an ``InvalidRequest`` naming what is missing);
- :class:`LegacyReadError`: the workspace cannot be read as v1 wrote it (an
  undecodable value, a chunk file that cannot be read, a failed query);
- :class:`MigrationFailed`: the engine's ``store_many`` failed; it carries the
  last committed checkpoint to resume from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory import EngineError, InvalidRequest, TinyMemoryError

if TYPE_CHECKING:
    from .checkpoint import Checkpoint


class NotLegacy(InvalidRequest):
    """The path is not a v1 TinyCortex workspace; the message names what is missing."""


class LegacyReadError(InvalidRequest):
    """A value, file or query of the workspace could not be read; nothing after it was yielded."""


class MigrationFailed(EngineError):
    """``store_many`` failed during a migration.

    ``checkpoint`` is the last committed one (the start, or ``from_``, when no
    batch was stored): resuming from it re-sends the failed batch. ``cause``
    is the engine's own error.
    """

    def __init__(self, message: str, *, checkpoint: Checkpoint, cause: TinyMemoryError) -> None:
        super().__init__(message)
        self.checkpoint = checkpoint
        self.cause = cause
