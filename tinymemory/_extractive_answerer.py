"""The built-in answerer ``extractive`` (:mod:`tinymemory.answerers` says what it does).

Defined apart from the plugin module that offers it (and so from pluggy), so an
engine holding its default answerer loads no part of the plugin system.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinymemory._hookspecs import Answerer, Embedder
    from tinymemory._operations import Hit, RecallAnswer, RecallRequest


class ExtractiveAnswerer:
    """The answerer ``extractive``: the sentences of the hits that bear on the question, cited.

    With an ``embedder``, the sentences closest in meaning when none holds the
    question's words.
    """

    name = "extractive"

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def answer(self, request: RecallRequest, hits: Sequence[Hit]) -> RecallAnswer:
        """:func:`~tinymemory.retrieval.extractive_answer` of the question over ``hits``."""
        # Loaded with the first answer, not with the plugin: start-up lists plugins only.
        from tinymemory._extractive import extractive_answer

        return extractive_answer(request.question, hits, embedder=self.embedder)

    def __repr__(self) -> str:
        return f"ExtractiveAnswerer(embedder={self.embedder!r})"


def engine_answerer(answerer: Answerer | None, embedder: Embedder) -> Answerer:
    """The answerer an engine searching with ``embedder`` uses: ``answerer``, by default
    :class:`ExtractiveAnswerer`; the extractive one answers by meaning with ``embedder``."""
    if answerer is None or isinstance(answerer, ExtractiveAnswerer):
        return ExtractiveAnswerer(embedder)
    return answerer
