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
  :func:`recall_ranking`;
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

from tinymemory._cursors import LARGEST_POSITION as LARGEST_POSITION
from tinymemory._cursors import CursorCodec as CursorCodec
from tinymemory._cursors import new_secret as new_secret
from tinymemory._cursors import read_key as read_key
from tinymemory._cursors import unknown_cursor as unknown_cursor
from tinymemory._document_pieces import Piece as Piece
from tinymemory._document_pieces import cut_pieces as cut_pieces
from tinymemory._exports import public_names as _public_names
from tinymemory._extractive import extractive_answer as extractive_answer
from tinymemory._words import STOP_WORDS as STOP_WORDS
from tinymemory._words import WORD_PATTERN as WORD_PATTERN
from tinymemory._words import decompose as decompose
from tinymemory._words import fold as fold
from tinymemory._words import words as words
from tinymemory.hashing import HashingEmbedder as HashingEmbedder

from ._hits import PIECE_TARGET as PIECE_TARGET
from ._hits import Prepared as Prepared
from ._hits import first_copies as first_copies
from ._hits import piece_hit as piece_hit
from ._hits import receipts as receipts
from ._paging import MOST_ROWS as MOST_ROWS
from ._paging import ListPaging as ListPaging
from ._paging import RankedPaging as RankedPaging
from ._paging import most_rows as most_rows
from ._ranking import FUSION_DEPTH as FUSION_DEPTH
from ._ranking import RECALL_SIMILARITY as RECALL_SIMILARITY
from ._ranking import Ranked as Ranked
from ._ranking import Ranking as Ranking
from ._ranking import best_pieces as best_pieces
from ._ranking import fused as fused
from ._ranking import ranked_by_mode as ranked_by_mode
from ._ranking import recall_ranking as recall_ranking
from ._ranking import unlisted_score as unlisted_score
from ._reindex import reindex_in_batches as reindex_in_batches
from ._sql import FACET_COLUMNS as FACET_COLUMNS
from ._sql import ITEM_COLUMNS as ITEM_COLUMNS
from ._sql import Clause as Clause
from ._sql import Dialect as Dialect
from ._sql import Scope as Scope
from ._sql import bound_query as bound_query
from ._sql import erase_clause as erase_clause
from ._sql import explore_page as explore_page
from ._sql import explore_queries as explore_queries
from ._sql import filter_clause as filter_clause
from ._sql import item_columns as item_columns
from ._sql import kinds_clause as kinds_clause
from ._sql import last_service as last_service
from ._sql import reach_clause as reach_clause
from ._vectors import embedding_matrix as embedding_matrix
from ._vectors import piece_vectors as piece_vectors

__all__ = _public_names(globals())
