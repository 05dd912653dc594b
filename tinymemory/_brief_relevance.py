"""Which brief of ``context.md`` a quoted text belongs to, by recall's bars.

A text passes a brief's bars when it is closer to the brief's question than
every unrelated background sentence, and closer to the question than to every
unrelated background question (the embedder's own background,
``tinymemory.retrieval.background``; docs/recall.md). Of the briefs it passes,
it belongs to the one whose question it is closest to, so a quote has one
home whatever the briefs' order. Every decision compares this embedder's
similarities with each other, never with a constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinymemory.retrieval import background, embedding_matrix

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder

__all__ = ["BriefJudge"]


class BriefJudge:
    """Judges quotes for a document's briefs, given their ``questions`` in order."""

    def __init__(self, embedder: Embedder, questions: Sequence[str]) -> None:
        self._embedder = embedder
        self._background = background(embedder)
        self._questions = embedding_matrix(embedder, questions)
        self._bars = [self._background.question_bar(row) for row in self._questions]

    def homes(self, texts: Sequence[str]) -> list[int | None]:
        """Per text, the place of the brief it belongs to, or None when it passes no bar."""
        if not texts:
            return []
        vectors = embedding_matrix(self._embedder, texts)
        similarities = (vectors @ self._questions.T).tolist()
        hubs = self._background.sentence_bars(vectors).tolist()
        homes: list[int | None] = []
        for row, hub in zip(similarities, hubs, strict=True):
            passing = [
                place
                for place, value in enumerate(row)
                if value > self._bars[place] and value > hub
            ]
            homes.append(max(passing, key=lambda place: row[place]) if passing else None)
        return homes
