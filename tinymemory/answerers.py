"""The built-in answerer ``extractive``: a recall answer quoted from the passages, with no model.

:class:`ExtractiveAnswerer` is the default of every engine that does not
answer natively (sqlite, postgres; the reference engine when it is named): it
hands the question and the hits to
:func:`tinymemory.retrieval.extractive_answer`, offline and deterministic.
Other answerers come from plugins (``tinymemory_answerers``) and are chosen by
name with an engine's ``answerer`` option or ``tinymemory recall --answerer``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinymemory._hookspecs import Answerer, hookimpl
from tinymemory._operations import Hit, RecallAnswer, RecallRequest

__all__ = ["ExtractiveAnswerer", "tinymemory_answerers"]


class ExtractiveAnswerer:
    """The answerer ``extractive``: the sentences of the hits that bear on the question, cited."""

    name = "extractive"

    def answer(self, request: RecallRequest, hits: Sequence[Hit]) -> RecallAnswer:
        """:func:`~tinymemory.retrieval.extractive_answer` of the question over ``hits``."""
        # Loaded with the first answer, not with the plugin: start-up lists plugins only.
        from tinymemory._extractive import extractive_answer

        return extractive_answer(request.question, hits)

    def __repr__(self) -> str:
        return "ExtractiveAnswerer()"


@hookimpl
def tinymemory_answerers() -> list[Answerer]:
    """The offline default answerer ``extractive``."""
    return [ExtractiveAnswerer()]
