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

from tinymemory._extractive_answerer import ExtractiveAnswerer as ExtractiveAnswerer
from tinymemory._extractive_answerer import engine_answerer as engine_answerer
from tinymemory._hookspecs import Answerer, hookimpl

__all__ = ["ExtractiveAnswerer", "engine_answerer", "tinymemory_answerers"]


@hookimpl
def tinymemory_answerers() -> list[Answerer]:
    """The offline default answerer ``extractive``."""
    return [ExtractiveAnswerer()]
