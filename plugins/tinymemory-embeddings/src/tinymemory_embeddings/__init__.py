"""TinyMemory's embedders, each chosen by name with ``embedder = "<name>"`` in an engine's settings.

- ``model2vec`` (:mod:`.model2vec_embedder`): static embeddings, numpy only, fast on CPU;
- ``openai`` (:mod:`.openai_embedder`): any OpenAI-compatible ``/v1/embeddings``
  server, over the transport :mod:`.openai_api`, which the answerers of
  ``tinymemory-answerers`` share;
- ``sentence-transformers`` (:mod:`.sentence_transformers_embedder`), with the
  ``sentence-transformers`` extra (torch);

each configured in the configuration file's ``[plugins.embeddings.<name>]``
table and loading its model (or sending anything) on its first ``embed``, never
when plugins are listed. :mod:`.testing` builds a tiny model2vec model offline;
:mod:`.openai_testing` is a loopback OpenAI-compatible server for tests.
"""
