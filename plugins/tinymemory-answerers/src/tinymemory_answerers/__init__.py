"""TinyMemory's answerers as a plugin: recall answers written by a model.

The answerer ``openai`` (:mod:`tinymemory_answerers.openai_answerer`) asks any
OpenAI-compatible chat model, over the transport of ``tinymemory-embeddings``,
with a grounded prompt (:mod:`tinymemory_answerers.grounding`).
"""
