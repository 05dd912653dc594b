"""Which hits of a recall are relevant, compared like with like, and their fused order.

A piece found by vector is relevant when it is closer to the question than every
background passage (:func:`~tinymemory.retrieval.question_bar`). A long piece
embeds as the average of its sentences, so the one sentence that answers is
diluted by the others (and by a table or a heading beside it): compared as a
whole with passages of a few sentences, it falls under the bar although part of
it answers. So a piece under that bar is relevant too when its best window of
prose sentences (as many as a background passage holds, or all of its sentences
when it has fewer) is closer to the question than every window of as many
sentences slid over the background (:meth:`Background.window_bar`): both sides
are windows of one size slid over a text, one the stored piece, the other the
embedder's own unrelated text. See docs/recall.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory.retrieval._background import (
    PASSAGE_SENTENCES,
    background,
    embedded,
    pairwise,
    question_bar,
    windows,
)
from tinymemory.retrieval._ranking import Ranked, recall_ranking

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder
    from tinymemory._operations import Hit
    from tinymemory.retrieval._vectors import Floats
else:
    Floats = Any


def windowed(
    embedder: Embedder, question: Floats, entries: Sequence[Ranked], texts: Sequence[str]
) -> frozenset[int]:
    """The pieces of ``entries`` (their texts ``texts``, in order) one of whose windows of
    prose sentences is closer to ``question`` (its vector by ``embedder``) than every
    background window of as many sentences. One embed call for every window at stake
    (the process keeps their vectors: :func:`~tinymemory.retrieval._background.embedded`)."""
    from tinymemory._extractive import sentences

    slid: list[tuple[int, int, int]] = []  # (piece, window size, count of windows)
    joined: list[str] = []
    for entry, text in zip(entries, texts, strict=True):
        found = sentences(text)
        if not found:
            continue  # a table or code alone: judged as a whole only
        size = min(PASSAGE_SENTENCES, len(found))
        runs = windows(found, size)
        slid.append((entry.piece, size, len(runs)))
        joined += runs
    if not joined:
        return frozenset()
    known = background(embedder)
    similarities = pairwise(embedded(embedder, joined), question[None, :])[:, 0]
    passing = set()
    start = 0
    for piece, size, count in slid:
        best = float(similarities[start : start + count].max())
        start += count
        if best > known.window_bar(question, size):
            passing.add(piece)
    return frozenset(passing)


def recall_hits(
    embedder: Embedder,
    question: Floats,
    matched: Sequence[Ranked],
    similar: Sequence[Ranked],
    hits: Sequence[Hit],
    limit: int,
) -> list[Hit]:
    """The relevant hits of a recall, best first, each scored by the fusion: ``matched``
    (by keyword) and the relevant ones of ``similar`` (by vector to ``question``, its
    vector by ``embedder``) fused by :func:`~tinymemory.retrieval.recall_ranking`.
    ``hits`` are the hits of ``[*matched, *similar]``, in that order (an engine reads them
    in the read that ranked them)."""
    entries = [*matched, *similar]
    if len(hits) != len(entries):
        raise ValueError(f"{len(hits)} hits for {len(entries)} ranked entries")
    by_piece = {entry.piece: hit for entry, hit in zip(entries, hits, strict=True)}
    bar = question_bar(embedder, question)
    below = [entry for entry in similar if entry.score <= bar]
    passing = windowed(embedder, question, below, [by_piece[entry.piece].text for entry in below])
    ranking = recall_ranking(list(matched), list(similar), limit, bar, passing)
    return [attrs.evolve(by_piece[entry.piece], score=entry.score) for entry in ranking]
