"""TinyMemory as LangGraph's long-term memory: :class:`TinyMemoryStore`, a ``BaseStore``.

::

    import tinymemory as tm
    from tinymemory_langgraph import TinyMemoryStore

    store = TinyMemoryStore(tm.build_engine("sqlite"), at="agent:writer")
    store.put(("users", "ada"), "style", {"text": "prefers short sentences"})

How a namespace becomes a node: :mod:`tinymemory_langgraph.namespaces`;
how an entry is stored and searched: :mod:`tinymemory_langgraph.store`.
"""

from __future__ import annotations

from tinymemory_langgraph.namespaces import labels_of, node_of
from tinymemory_langgraph.store import TinyMemoryStore

__all__ = ["TinyMemoryStore", "labels_of", "node_of"]
