"""TinyMemory's embedders as a plugin: real embedding models for vector search.

The embedder ``openai`` (:mod:`tinymemory_embeddings.openai_embedder`) over the
OpenAI-compatible transport :mod:`tinymemory_embeddings.openai_api`, which the
answerers of ``tinymemory-answerers`` share; a loopback OpenAI-compatible
server for tests in :mod:`tinymemory_embeddings.openai_testing`.
"""
