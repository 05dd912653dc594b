"""The plugin API: everything a plugin may import besides the public ``tinymemory`` names.

A plugin imports ``tinymemory`` and this module, nothing else of the package
(a test holds every plugin under ``plugins/`` to that), so the core's own
modules can change without breaking a plugin. ``__all__`` is pinned by a test.

- the hook marker: :data:`hookimpl`;
- what the hooks return: :class:`EngineFactory`, :class:`DocumentConverter`,
  :class:`SourceReader` with its :class:`ReaderContext` and the
  :class:`ReaderOption` it declares for the command line, :class:`Fetcher`,
  :class:`HttpResponse` and :class:`SourceSkip`, :class:`Scrubber`, :class:`Embedder`;
- the engine base and wrapper: :class:`MemoryEngine`, :class:`EngineWrapper`;
- helpers an engine needs: the JSON forms (:func:`to_json`, :func:`from_json`,
  :func:`to_data`, :func:`from_data`), the id of an item's canonical JSON
  (:func:`fingerprint_json`), plain data as that canonical JSON
  (:func:`canonical_json`), a stored item's canonical JSON and id in one
  writing (:func:`json_and_id`) and read back (:func:`item_from_json`),
  :func:`build_explore_page`, cutting long
  documents (:func:`cut_pieces`, :class:`Piece`), the installed embedders by
  name (:func:`embedders`), UTC timestamps (:func:`to_utc`);
- for scrubbers: :func:`map_texts`;
- a plugin's own settings from the configuration file: :func:`plugin_settings`;
- words compared as the core compares them (:func:`fold`, :func:`decompose`,
  :func:`words`, :data:`WORD_PATTERN`, :data:`STOP_WORDS`), and the extractive
  recall answer built from them (:func:`extractive_answer`).
"""

from __future__ import annotations

from tinymemory._canonical import dumps as canonical_json
from tinymemory._canonical import fingerprint_json
from tinymemory._config_file import plugin_settings
from tinymemory._document_pieces import Piece, cut_pieces
from tinymemory._engine import EngineWrapper, MemoryEngine, build_explore_page
from tinymemory._extractive import extractive_answer
from tinymemory._hookspecs import (
    DocumentConverter,
    Embedder,
    EngineFactory,
    Fetcher,
    HttpResponse,
    ReaderContext,
    ReaderOption,
    Scrubber,
    SourceReader,
    SourceSkip,
    hookimpl,
)
from tinymemory._item_json import item_from_json, json_and_id
from tinymemory._plugin_manager import embedders
from tinymemory._scrubbing import map_texts
from tinymemory._timestamps import to_utc
from tinymemory._wire import from_data, from_json, to_data, to_json
from tinymemory._words import STOP_WORDS, WORD_PATTERN, decompose, fold, words

__all__ = [
    "DocumentConverter",
    "Embedder",
    "EngineFactory",
    "EngineWrapper",
    "Fetcher",
    "HttpResponse",
    "MemoryEngine",
    "Piece",
    "ReaderContext",
    "ReaderOption",
    "STOP_WORDS",
    "Scrubber",
    "SourceReader",
    "SourceSkip",
    "WORD_PATTERN",
    "build_explore_page",
    "canonical_json",
    "cut_pieces",
    "decompose",
    "embedders",
    "extractive_answer",
    "fingerprint_json",
    "fold",
    "from_data",
    "from_json",
    "hookimpl",
    "item_from_json",
    "json_and_id",
    "map_texts",
    "plugin_settings",
    "to_data",
    "to_json",
    "to_utc",
    "words",
]
