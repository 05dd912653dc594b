"""Re-embedding a memory in batches: the loop every engine's ``reindex`` runs over its own steps.

The engine hands in its steps, each one transaction of its own, already bound
to the target embedder: ``begin()`` (start or continue; the last item ``seq``
done), ``counts(through)`` (items done and in all), ``next_pieces(through)``
(``(piece, item, text)`` of the next whole items, none when all are done),
``commit(rows, vectors)`` (write a batch; the last item done, items done, in
all) and ``finish()`` (swap the new vectors in; false when items came in
meanwhile). Embedding runs between transactions, never inside one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tinymemory._embedder_choice import embedder_identity

from ._vectors import embedding_matrix

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder, ReindexReport

#: ``(piece id, item seq, text)``: a piece to embed.
PieceRow = tuple[int, int, str]


def reindex_in_batches(
    embedder: Embedder,
    *,
    begin: Callable[[], int],
    counts: Callable[[int], tuple[int, int]],
    next_pieces: Callable[[int], Sequence[PieceRow]],
    commit: Callable[[Sequence[PieceRow], Any], tuple[int, int, int]],
    finish: Callable[[], bool],
    progress: Callable[[int, int], None] | None = None,
) -> ReindexReport:
    """Embed every batch ``next_pieces`` hands out with ``embedder``, ``commit`` it, call
    ``progress(done, total)``, and ``finish`` once none is left; what it did."""
    through = begin()
    earlier, total = counts(through)
    done = earlier
    while True:
        rows = next_pieces(through)
        if not rows:
            if finish():
                break
            continue  # items stored since the last look: embed them too
        vectors = embedding_matrix(embedder, [text for _, _, text in rows])
        through, done, total = commit(rows, vectors)
        if progress is not None:
            progress(done, total)
    # The hooks' module (and pluggy) load with a reindex, not with every engine.
    from tinymemory._hookspecs import ReindexReport

    return ReindexReport(
        embedder=embedder_identity(embedder), items=done - earlier, earlier=earlier, total=total
    )
