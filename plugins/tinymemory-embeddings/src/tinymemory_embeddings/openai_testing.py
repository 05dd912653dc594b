"""A loopback OpenAI-compatible server for tests: :class:`OpenAIDouble`.

A standard-library ``http.server`` on ``127.0.0.1``, on a free port, in a
thread of its own, serving ``POST /v1/embeddings`` and
``POST /v1/chat/completions``. Each answer is the next one scripted for its
route (:meth:`OpenAIDouble.script`), else the default: embeddings from the
core's hashing embedder (the same text, the same vector; related texts
close), listed in reverse ``index`` order so a client must sort them; a chat
completion from ``answer`` (by default the line after the one opening passage
1, ``[1] ...`` or ``<passage n="1">``, cited ``[1]``). Every request is kept
in :attr:`OpenAIDouble.received`::

    with OpenAIDouble(dimensions=32) as server:
        server.script("embeddings", Reply(status=429), Reply(status=500))
        ...  # point a client at server.base_url
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import attrs

__all__ = ["OpenAIDouble", "Received", "Reply", "chat_reply"]

#: The routes served, below ``/v1/``.
ROUTES = ("embeddings", "chat/completions")


@attrs.frozen(kw_only=True)
class Reply:
    """A scripted answer: ``status``, ``body`` (JSON-able data, or ``bytes`` sent as they
    are), ``headers`` (``Retry-After``...), sent after ``delay`` seconds."""

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = attrs.field(factory=dict)
    delay: float = 0.0


@attrs.frozen(kw_only=True)
class Received:
    """A request the server got: its route, headers and decoded JSON body (None if not JSON)."""

    route: str
    headers: Mapping[str, str]
    body: Any


def chat_reply(content: str | None, *, model: str = "double-chat", **extra: Any) -> Reply:
    """A chat completion whose message says ``content`` (``extra`` keys go in its message)."""
    message = {"role": "assistant", "content": content, **extra}
    return Reply(
        body={
            "id": "chatcmpl-double",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
    )


def _first_passage_line(messages: Sequence[Mapping[str, Any]]) -> str:
    text = "\n".join(str(message.get("content", "")) for message in messages)
    # Passage 1 opens with a line `[1] ...` or a fence `<passage n="1">`.
    found = re.search(r'(?:^\[1\]|n="1">)[^\n]*\n(.+)$', text, re.M)
    return f"{found.group(1).strip() if found else 'Nothing'} [1]"


class OpenAIDouble:
    """The server, running from ``start()`` (or ``with``) to ``close()``.

    ``dimensions`` is the size of the default embeddings; ``answer`` turns a
    chat request's messages into the reply's text.
    """

    def __init__(
        self,
        *,
        dimensions: int = 16,
        answer: Callable[[Sequence[Mapping[str, Any]]], str] = _first_passage_line,
    ) -> None:
        self.dimensions = dimensions
        self.answer = answer
        self.received: list[Received] = []
        self._scripts: dict[str, deque[Reply]] = {route: deque() for route in ROUTES}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, the ``base_url`` a client is given."""
        if self._server is None:
            raise RuntimeError("the double is not running: call start() first")
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def script(self, route: str, *replies: Reply) -> None:
        """Queue ``replies`` for ``route`` (``embeddings`` or ``chat/completions``), in order."""
        if route not in self._scripts:
            raise ValueError(f"the double serves {', '.join(ROUTES)}, not {route!r}")
        with self._lock:
            self._scripts[route].extend(replies)

    def requests_to(self, route: str) -> list[Received]:
        """The requests received on ``route``, in order."""
        with self._lock:
            return [request for request in self.received if request.route == route]

    def start(self) -> OpenAIDouble:
        """Start serving on a free loopback port."""
        double = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                double._serve(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: a test reads `received`

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        server.block_on_close = False  # a slow reply must not hold close() up
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and free the port."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> OpenAIDouble:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        route = handler.path.removeprefix("/v1/")
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            self.received.append(Received(route=route, headers=dict(handler.headers), body=body))
            scripted = self._scripts.get(route)
            reply = scripted.popleft() if scripted else None
        if reply is None:
            reply = self._default(route, body)
        time.sleep(reply.delay)
        payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
        try:
            handler.send_response(reply.status)
            for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)
        except OSError:
            pass  # the client gave up waiting (a timeout test): nothing to tell it

    def _default(self, route: str, body: Any) -> Reply:
        if route == "embeddings" and isinstance(body, dict):
            texts = body.get("input")
            texts = [texts] if isinstance(texts, str) else texts
            if isinstance(texts, list) and all(isinstance(text, str) for text in texts):
                return Reply(body=self.embeddings(texts, model=str(body.get("model"))))
        if route == "chat/completions" and isinstance(body, dict):
            messages = body.get("messages")
            if isinstance(messages, list):
                return chat_reply(self.answer(messages), model=str(body.get("model")))
        return Reply(status=404 if route not in ROUTES else 400, body={"error": "bad request"})

    def embeddings(self, texts: Sequence[str], *, model: str = "double-embed") -> dict[str, Any]:
        """The reply body to embedding ``texts``: hashing vectors, in reverse index order."""
        from tinymemory.retrieval import HashingEmbedder

        vectors = HashingEmbedder(self.dimensions).embed(list(texts))
        data = [
            {"object": "embedding", "index": index, "embedding": vector}
            for index, vector in enumerate(vectors)
        ]
        return {"object": "list", "model": model, "data": data[::-1]}
