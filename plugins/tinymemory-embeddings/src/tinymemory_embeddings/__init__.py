"""TinyMemory's embedders, each chosen by name with ``embedder = "<name>"`` in an engine's settings.

- ``model2vec`` (:mod:`.model2vec_embedder`): static embeddings, numpy only, fast on CPU;
- ``sentence-transformers`` (:mod:`.sentence_transformers_embedder`), with the
  ``sentence-transformers`` extra (torch);

each configured in the configuration file's ``[plugins.embeddings.<name>]``
table (:mod:`.settings`) and loading its model on its first ``embed``, never
when plugins are listed. :mod:`.testing` builds a tiny model2vec model offline.
"""
