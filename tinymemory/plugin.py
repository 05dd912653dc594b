"""The plugin API: the hooks and base classes a plugin builds on, besides the ``tinymemory`` names.

A plugin imports ``tinymemory``, this module and the retrieval kit
``tinymemory.retrieval``, nothing else of the package (a test holds every
plugin under ``plugins/`` to that), so the core's own modules can change
without breaking a plugin. Each name is declared once, by its import below
(``import X as X``); ``__all__`` is derived from them.

- the hook marker: :data:`hookimpl`;
- what the hooks return: :class:`EngineFactory`, :class:`DocumentConverter`,
  :class:`SourceReader` with its :class:`ReaderContext` and the
  :class:`ReaderOption` it declares for the command line, :class:`Fetcher`,
  :class:`HttpResponse` and :class:`SourceSkip`, :class:`Scrubber`, :class:`Embedder`,
  :class:`Answerer`;
- what an engine may implement: :class:`Reindexer` (``tinymemory reindex``)
  with its :class:`ReindexReport`;
- the engine base and wrapper: :class:`MemoryEngine`, :class:`EngineWrapper`;
- helpers an engine needs: the JSON forms (:func:`to_json`, :func:`from_json`,
  :func:`to_data`, :func:`from_data`), the id of an item's canonical JSON
  (:func:`fingerprint_json`), plain data as that canonical JSON
  (:func:`canonical_json`), a stored item's canonical JSON and id in one
  writing (:func:`json_and_id`) and read back (:func:`item_from_json`),
  :func:`build_explore_page`, the installed embedders by name
  (:func:`embedders`, one of them: :func:`embedder_named`), the default one
  (:func:`default_embedder`), the identity a memory records of its embedder
  (:func:`embedder_identity`) and the embedder an engine whose settings name
  none opens a memory with (:func:`memory_embedder`), the installed
  answerers by name (:func:`answerers`, :func:`answerer_named`) and the
  default one (:class:`ExtractiveAnswerer`; :func:`engine_answerer` gives it an
  engine's embedder), UTC timestamps (:func:`to_utc`);
- for a plugin calling a service: :func:`check_endpoint` (no credential in
  cleartext to another machine) and :func:`redact_url`;
- for scrubbers: :func:`map_texts`;
- a plugin's own settings from the configuration file: :func:`plugin_settings`.

Ranking stored text (cursors, fusion, hits, SQL filters, vectors, words and
the extractive answer) is the retrieval kit's: :mod:`tinymemory.retrieval`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory._exports import lazy_exports

if TYPE_CHECKING:
    from tinymemory._canonical import canonical_json as canonical_json
    from tinymemory._canonical import fingerprint_json as fingerprint_json
    from tinymemory._config_file import plugin_settings as plugin_settings
    from tinymemory._embedder_choice import embedder_identity as embedder_identity
    from tinymemory._embedder_choice import memory_embedder as memory_embedder
    from tinymemory._engine import EngineWrapper as EngineWrapper
    from tinymemory._engine import MemoryEngine as MemoryEngine
    from tinymemory._engine import build_explore_page as build_explore_page
    from tinymemory._extractive_answerer import ExtractiveAnswerer as ExtractiveAnswerer
    from tinymemory._extractive_answerer import engine_answerer as engine_answerer
    from tinymemory._hookspecs import Answerer as Answerer
    from tinymemory._hookspecs import DocumentConverter as DocumentConverter
    from tinymemory._hookspecs import Embedder as Embedder
    from tinymemory._hookspecs import EngineFactory as EngineFactory
    from tinymemory._hookspecs import Fetcher as Fetcher
    from tinymemory._hookspecs import HttpResponse as HttpResponse
    from tinymemory._hookspecs import ReaderContext as ReaderContext
    from tinymemory._hookspecs import ReaderOption as ReaderOption
    from tinymemory._hookspecs import Reindexer as Reindexer
    from tinymemory._hookspecs import ReindexReport as ReindexReport
    from tinymemory._hookspecs import Scrubber as Scrubber
    from tinymemory._hookspecs import SourceReader as SourceReader
    from tinymemory._hookspecs import SourceSkip as SourceSkip
    from tinymemory._hookspecs import hookimpl as hookimpl
    from tinymemory._item_json import item_from_json as item_from_json
    from tinymemory._item_json import json_and_id as json_and_id
    from tinymemory._plugin_manager import answerer_named as answerer_named
    from tinymemory._plugin_manager import answerers as answerers
    from tinymemory._plugin_manager import default_embedder as default_embedder
    from tinymemory._plugin_manager import embedder_named as embedder_named
    from tinymemory._plugin_manager import embedders as embedders
    from tinymemory._scrubbing import item_texts as item_texts
    from tinymemory._scrubbing import map_texts as map_texts
    from tinymemory._settings import check_endpoint as check_endpoint
    from tinymemory._settings import redact_url as redact_url
    from tinymemory._timestamps import to_utc as to_utc
    from tinymemory._wire import from_data as from_data
    from tinymemory._wire import from_json as from_json
    from tinymemory._wire import to_data as to_data
    from tinymemory._wire import to_json as to_json

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tinymemory._canonical": (
            "canonical_json",
            "fingerprint_json",
        ),
        "tinymemory._config_file": ("plugin_settings",),
        "tinymemory._embedder_choice": ("embedder_identity", "memory_embedder"),
        "tinymemory._engine": (
            "EngineWrapper",
            "MemoryEngine",
            "build_explore_page",
        ),
        "tinymemory._hookspecs": (
            "Answerer",
            "DocumentConverter",
            "Embedder",
            "EngineFactory",
            "Fetcher",
            "HttpResponse",
            "ReaderContext",
            "ReaderOption",
            "Reindexer",
            "ReindexReport",
            "Scrubber",
            "SourceReader",
            "SourceSkip",
            "hookimpl",
        ),
        "tinymemory._item_json": (
            "item_from_json",
            "json_and_id",
        ),
        "tinymemory._plugin_manager": (
            "answerer_named",
            "answerers",
            "default_embedder",
            "embedder_named",
            "embedders",
        ),
        "tinymemory._scrubbing": ("item_texts", "map_texts"),
        "tinymemory._settings": (
            "check_endpoint",
            "redact_url",
        ),
        "tinymemory._timestamps": ("to_utc",),
        "tinymemory._wire": (
            "from_data",
            "from_json",
            "to_data",
            "to_json",
        ),
        "tinymemory._extractive_answerer": (
            "ExtractiveAnswerer",
            "engine_answerer",
        ),
    },
)
