"""Reading a reader's ``options`` strictly, before any I/O: names, types and bounds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from tinymemory import InvalidRequest
from tinymemory.plugin import ReaderOption

T = TypeVar("T")


def check_names(reader: str, options: Mapping[str, Any], known: tuple[str, ...]) -> None:
    """Refuse an option ``reader`` does not take, naming the ones it does."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise InvalidRequest(
            f"reader `{reader}` takes no option `{unknown[0]}` (it takes: {', '.join(known)})"
        )


def text_option(
    reader: str, options: Mapping[str, Any], name: str, *, required: bool = False
) -> str | None:
    """Option ``name`` as a non-blank string; ``None`` when absent and not required."""
    value = options.get(name)
    if value is None:
        if required:
            raise InvalidRequest(f"reader `{reader}` needs the option `{name}`")
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequest(f"reader `{reader}`: option `{name}` must be a non-blank string")
    return value


def int_option(
    reader: str, options: Mapping[str, Any], name: str, default: int, low: int, high: int
) -> int:
    """Option ``name`` as an integer from ``low`` to ``high``, ``default`` when absent."""
    value = options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidRequest(
            f"reader `{reader}`: option `{name}` must be an integer from {low} to {high}"
        )
    return value


def bool_option(reader: str, options: Mapping[str, Any], name: str, default: bool) -> bool:
    """Option ``name`` as a boolean, ``default`` when absent."""
    value = options.get(name, default)
    if not isinstance(value, bool):
        raise InvalidRequest(f"reader `{reader}`: option `{name}` must be true or false")
    return value


def option_names(source: str, declared: Sequence[ReaderOption], *more: str) -> tuple[str, ...]:
    """Every option a reader takes: its source option, those it declares, then ``more``."""
    return (source, *(option.name for option in declared), *more)


#: ``max_file_bytes``, as the readers of files declare it.
MAX_FILE_BYTES = ReaderOption(
    name="max_file_bytes", kind="integer", help="Skip files larger than this (default 10 MiB)."
)
