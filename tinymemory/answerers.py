"""The built-in answerer ``extractive``: a recall answer quoted from the passages, with no model.

:class:`ExtractiveAnswerer` is the default of every engine that does not
answer natively (sqlite, postgres; the reference engine when it is named): it
hands the question and the hits to
:func:`tinymemory.retrieval.extractive_answer`, offline and deterministic.
An engine gives it the embedder it searched with (:func:`engine_answerer`), so
a question sharing no word with the passage that answers it is still answered
when that embedder knows meaning.
Other answerers come from plugins (``tinymemory_answerers``) and are chosen by
name with an engine's ``answerer`` option or ``tinymemory recall --answerer``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinymemory._hookspecs import Answerer, Embedder, hookimpl
from tinymemory._operations import Hit, RecallAnswer, RecallRequest

__all__ = ["ExtractiveAnswerer", "engine_answerer", "tinymemory_answerers"]


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


@hookimpl
def tinymemory_answerers() -> list[Answerer]:
    """The offline default answerer ``extractive``."""
    return [ExtractiveAnswerer()]
