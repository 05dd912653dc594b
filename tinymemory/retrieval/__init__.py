"""The retrieval kit: what every engine that ranks stored text needs, written once.

An engine plugin imports ``tinymemory``, ``tinymemory.plugin`` (hooks and
base classes) and this package; the sqlite and postgres engines are built
from it and keep only what is theirs (schema, connections, search SQL,
vector index, dialect). See docs/retrieval.md.

- cursors: :class:`CursorCodec` (opaque, authenticated with a per-memory
  secret from :func:`new_secret`, strict), :func:`read_key` naming a read,
  :func:`unknown_cursor`;
- rankings: :class:`Ranked`, :func:`best_pieces` (keyword scores),
  :func:`fused` (scores summed), :func:`unlisted_score`, :func:`ranked_by_mode`,
  :func:`rank_fused` (reciprocal ranks), :func:`recall_ranking` and its bar
  :func:`question_bar` (from the embedder's :func:`background`, docs/recall.md),
  :func:`recall_hits` (a recall's relevant hits, long pieces judged by their best
  window of sentences);
- items and hits: :class:`Prepared` (an item's id, JSON and pieces before any
  I/O), :func:`first_copies`, :func:`receipts`, :func:`piece_hit`, and the
  cutting of long documents (:func:`cut_pieces`, :class:`Piece`);
- filters and reaches as SQL over a :class:`Dialect`: :class:`Clause`,
  :class:`Scope`, :func:`filter_clause`, :func:`reach_clause`,
  :func:`erase_clause`, :func:`kinds_clause`, :func:`item_columns`,
  :data:`ITEM_COLUMNS`, :data:`FACET_COLUMNS`, :func:`last_service`;
- vectors: :func:`embedding_matrix` (an embedder's output checked and
  normalised), :func:`piece_vectors`, the built-in :class:`HashingEmbedder`,
  and :func:`reindex_in_batches`, the loop of an engine's ``reindex``;
- text: :func:`fold`, :func:`decompose`, :func:`words`, :data:`WORD_PATTERN`,
  :data:`STOP_WORDS`, and :func:`extractive_answer`, a recall answer without
  a model.

numpy (the ``vectors`` extra) loads only when vectors are made or read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory._exports import lazy_exports

if TYPE_CHECKING:
    from tinymemory._cursors import LARGEST_POSITION as LARGEST_POSITION
    from tinymemory._cursors import CursorCodec as CursorCodec
    from tinymemory._cursors import new_secret as new_secret
    from tinymemory._cursors import read_key as read_key
    from tinymemory._cursors import unknown_cursor as unknown_cursor
    from tinymemory._document_pieces import Piece as Piece
    from tinymemory._document_pieces import cut_pieces as cut_pieces
    from tinymemory._extractive import extractive_answer as extractive_answer
    from tinymemory._hashing_embedder import HashingEmbedder as HashingEmbedder
    from tinymemory._words import STOP_WORDS as STOP_WORDS
    from tinymemory._words import WORD_PATTERN as WORD_PATTERN
    from tinymemory._words import decompose as decompose
    from tinymemory._words import fold as fold
    from tinymemory._words import words as words
    from tinymemory.retrieval._background import SYNONYMS as SYNONYMS
    from tinymemory.retrieval._background import background as background
    from tinymemory.retrieval._background import question_bar as question_bar
    from tinymemory.retrieval._hits import PIECE_TARGET as PIECE_TARGET
    from tinymemory.retrieval._hits import Prepared as Prepared
    from tinymemory.retrieval._hits import first_copies as first_copies
    from tinymemory.retrieval._hits import piece_hit as piece_hit
    from tinymemory.retrieval._hits import receipts as receipts
    from tinymemory.retrieval._paging import MOST_ROWS as MOST_ROWS
    from tinymemory.retrieval._paging import ListPaging as ListPaging
    from tinymemory.retrieval._paging import RankedPaging as RankedPaging
    from tinymemory.retrieval._paging import most_rows as most_rows
    from tinymemory.retrieval._ranking import FUSION_DEPTH as FUSION_DEPTH
    from tinymemory.retrieval._ranking import RANK_OFFSET as RANK_OFFSET
    from tinymemory.retrieval._ranking import Ranked as Ranked
    from tinymemory.retrieval._ranking import Ranking as Ranking
    from tinymemory.retrieval._ranking import best_pieces as best_pieces
    from tinymemory.retrieval._ranking import fused as fused
    from tinymemory.retrieval._ranking import rank_fused as rank_fused
    from tinymemory.retrieval._ranking import ranked_by_mode as ranked_by_mode
    from tinymemory.retrieval._ranking import recall_ranking as recall_ranking
    from tinymemory.retrieval._ranking import unlisted_score as unlisted_score
    from tinymemory.retrieval._reindex import reindex_in_batches as reindex_in_batches
    from tinymemory.retrieval._relevance import recall_hits as recall_hits
    from tinymemory.retrieval._sql import FACET_COLUMNS as FACET_COLUMNS
    from tinymemory.retrieval._sql import ITEM_COLUMNS as ITEM_COLUMNS
    from tinymemory.retrieval._sql import Clause as Clause
    from tinymemory.retrieval._sql import Dialect as Dialect
    from tinymemory.retrieval._sql import Scope as Scope
    from tinymemory.retrieval._sql import bound_query as bound_query
    from tinymemory.retrieval._sql import erase_clause as erase_clause
    from tinymemory.retrieval._sql import explore_page as explore_page
    from tinymemory.retrieval._sql import explore_queries as explore_queries
    from tinymemory.retrieval._sql import filter_clause as filter_clause
    from tinymemory.retrieval._sql import item_columns as item_columns
    from tinymemory.retrieval._sql import kinds_clause as kinds_clause
    from tinymemory.retrieval._sql import last_service as last_service
    from tinymemory.retrieval._sql import reach_clause as reach_clause
    from tinymemory.retrieval._vectors import embedding_matrix as embedding_matrix
    from tinymemory.retrieval._vectors import piece_vectors as piece_vectors

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tinymemory._cursors": (
            "LARGEST_POSITION",
            "CursorCodec",
            "new_secret",
            "read_key",
            "unknown_cursor",
        ),
        "tinymemory._document_pieces": (
            "Piece",
            "cut_pieces",
        ),
        "tinymemory._extractive": ("extractive_answer",),
        "tinymemory._words": (
            "STOP_WORDS",
            "WORD_PATTERN",
            "decompose",
            "fold",
            "words",
        ),
        "tinymemory._hashing_embedder": ("HashingEmbedder",),
        "tinymemory.retrieval._hits": (
            "PIECE_TARGET",
            "Prepared",
            "first_copies",
            "piece_hit",
            "receipts",
        ),
        "tinymemory.retrieval._paging": (
            "MOST_ROWS",
            "ListPaging",
            "RankedPaging",
            "most_rows",
        ),
        "tinymemory.retrieval._ranking": (
            "FUSION_DEPTH",
            "RANK_OFFSET",
            "Ranked",
            "Ranking",
            "best_pieces",
            "fused",
            "rank_fused",
            "ranked_by_mode",
            "recall_ranking",
            "unlisted_score",
        ),
        "tinymemory.retrieval._reindex": ("reindex_in_batches",),
        "tinymemory.retrieval._relevance": ("recall_hits",),
        "tinymemory.retrieval._background": ("SYNONYMS", "background", "question_bar"),
        "tinymemory.retrieval._sql": (
            "FACET_COLUMNS",
            "ITEM_COLUMNS",
            "Clause",
            "Dialect",
            "Scope",
            "bound_query",
            "erase_clause",
            "explore_page",
            "explore_queries",
            "filter_clause",
            "item_columns",
            "kinds_clause",
            "last_service",
            "reach_clause",
        ),
        "tinymemory.retrieval._vectors": (
            "embedding_matrix",
            "piece_vectors",
        ),
    },
)
