"""The double in-process, through ``responses`` (a test dependency, imported on use)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import requests

from .double import CortexDouble

if TYPE_CHECKING:
    import responses

#: The endpoint the in-process double answers at (nothing is listening there).
MOCK_ENDPOINT = "https://cortex.double.invalid"


@contextmanager
def mocked(
    double: CortexDouble | None = None, endpoint: str = MOCK_ENDPOINT
) -> Iterator[responses.RequestsMock]:
    """Answer every request to ``endpoint`` from ``double`` while the block runs.

    A slow answer past the request's timeout raises ``requests.ReadTimeout``
    (as the real client would after waiting); a dropped connection raises
    ``requests.ConnectionError``.
    """
    import responses

    served = double or CortexDouble()
    base = endpoint.rstrip("/")

    def reply(request: Any) -> tuple[int, dict[str, str], bytes]:
        target = request.url[len(base) :]
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode("utf-8")
        answer = served.handle(request.method, target, dict(request.headers), body)
        timeout = (getattr(request, "req_kwargs", None) or {}).get("timeout")
        read_timeout = timeout[1] if isinstance(timeout, tuple) else timeout
        if answer.delay:
            if read_timeout is not None and answer.delay > read_timeout:
                time.sleep(read_timeout)
                raise requests.ReadTimeout("the double answered too late")
            time.sleep(answer.delay)
        if answer.drop:
            raise requests.ConnectionError("RemoteDisconnected: the double dropped the connection")
        payload = b"" if answer.body is None else json.dumps(answer.body).encode("utf-8")
        return answer.status, {"Content-Type": "application/json", **answer.headers}, payload

    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        pattern = re.compile(re.escape(base) + r"/.*")
        for method in ("GET", "POST", "PUT", "DELETE"):
            mock.add_callback(method, pattern, callback=reply)
        yield mock
