"""Which brief of ``context.md`` a quoted text belongs to, judged against the memory itself.

Recall's bars (docs/recall.md) tell text on a question's subject from
unrelated text: a sentence answers when it is closer to the question than
every unrelated background sentence, and the question is closer to it than
every unrelated background question. Over a memory of documentation that
is not enough for a brief about the user: documentation about users, roles
and preferences uses the brief's own words, and passes by the hundreds.

So the bars are applied after taking out what the memory is mostly about.
The memory's centre is the mean direction of a sample of its own pieces
(what it holds nearest to the briefs' questions); every vector (the
questions, the quotes and the embedder's background) loses its component
along that centre before the bars compare them. What is left of a question
is what it asks beyond the memory's usual subject, and what is left of a
quote is what it says beyond it: a sentence of the documentation shares the
centre and little else with "who is the user", a fact about the user keeps
what makes it one. Every decision still compares this embedder's similarities
with each other, never with a constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tinymemory.retrieval import background, embedding_matrix

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder
    from tinymemory.retrieval._vectors import Floats
else:
    Floats = Any

__all__ = ["BriefJudge"]


class BriefJudge:
    """Judges quotes for a document's briefs: ``questions`` in order, ``sample`` the texts
    of the memory's own pieces whose mean direction is taken out (none: nothing is)."""

    def __init__(self, embedder: Embedder, questions: Sequence[str], sample: Sequence[str]) -> None:
        self._embedder = embedder
        known = background(embedder)
        self._centre = _centre(embedding_matrix(embedder, sample)) if sample else None
        self._questions = self._away(embedding_matrix(embedder, questions))
        #: Per brief, its question's similarity to the closest unrelated sentence.
        self._bars = (self._away(known.sentences) @ self._questions.T).max(axis=0)
        self._unrelated_questions = self._away(known.questions)

    def homes(self, texts: Sequence[str]) -> list[int | None]:
        """Per text, the place of the brief it belongs to, or None when it passes no bar.

        A text passes a brief's bars when it is closer to that brief's question
        than every unrelated sentence is, and closer to it than to every
        unrelated question; of the briefs it passes, its home is the closest.
        """
        if not texts:
            return []
        vectors = self._away(embedding_matrix(self._embedder, texts))
        similarities = (vectors @ self._questions.T).tolist()
        hubs = (vectors @ self._unrelated_questions.T).max(axis=1).tolist()
        bars = self._bars.tolist()
        homes: list[int | None] = []
        for row, hub in zip(similarities, hubs, strict=True):
            passing = [
                place for place, value in enumerate(row) if value > bars[place] and value > hub
            ]
            homes.append(max(passing, key=lambda place: row[place]) if passing else None)
        return homes

    def _away(self, vectors: Floats) -> Floats:
        """``vectors`` less their component along the memory's centre, of unit length again
        (a vector that was all centre is left zero: close to nothing)."""
        import numpy as np

        if self._centre is None:
            return vectors
        rest = vectors - np.outer(vectors @ self._centre, self._centre)
        norms = np.linalg.norm(rest, axis=1, keepdims=True)
        away: Floats = np.divide(rest, norms, out=np.zeros_like(rest), where=norms > 0)
        return away


def _centre(vectors: Floats) -> Floats | None:
    """The unit mean direction of ``vectors``; None when they cancel out."""
    import numpy as np

    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return None if norm == 0 else mean / norm
