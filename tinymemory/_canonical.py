"""The canonical JSON writer and the fingerprint of canonical JSON text.

The lowest layer of item identity: it imports nothing of the contract types.
:func:`dumps` writes plain data as serde_json writes it (compact, key order
kept, non-ASCII raw, floats as their shortest single-precision form), and
:func:`fingerprint_json` hashes such text into an item id.
"""

from __future__ import annotations

import hashlib
import json.encoder
from collections.abc import Callable
from typing import Any

from tinymemory._errors import InvalidRequest
from tinymemory._f32 import format_f32


def fingerprint_json(text: str) -> str:
    """The id of an item whose canonical JSON, ``observed_at`` cleared, is ``text``.

    ``InvalidRequest`` when the text holds a lone surrogate, which is not
    unicode text: no engine could store it, and it has no UTF-8 bytes to hash.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidRequest(
            "an item's text holds a lone surrogate, which is not unicode"
        ) from None
    return hashlib.sha256(data).hexdigest()[:40]


# What json.dumps(text, ensure_ascii=False) writes, without building an encoder per string.
_quoted: Callable[[str], str] = json.encoder.encode_basestring


def dumps(data: Any) -> str:
    """Compact JSON of plain data: key order kept, non-ASCII raw, floats as shortest f32."""
    parts: list[str] = []
    _write(data, parts)
    return "".join(parts)


def _write(value: Any, parts: list[str]) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, str):
        parts.append(_quoted(value))
    elif isinstance(value, int):
        parts.append(str(value))
    elif isinstance(value, float):
        parts.append(format_f32(value))
    elif isinstance(value, dict):
        parts.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                parts.append(",")
            parts.append(_quoted(str(key)))
            parts.append(":")
            _write(item, parts)
        parts.append("}")
    elif isinstance(value, (list, tuple)):
        parts.append("[")
        for index, item in enumerate(value):
            if index:
                parts.append(",")
            _write(item, parts)
        parts.append("]")
    else:
        raise TypeError(f"{type(value).__name__} has no json form")


#: The plugin API's name for :func:`dumps`.
canonical_json = dumps
