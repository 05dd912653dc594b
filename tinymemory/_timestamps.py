"""UTC timestamps in the contract's written form.

The original writes times as chrono does for ``DateTime<Utc>``:
``2025-05-06T07:08:09Z`` with a fraction only when it is not zero (3 or 6
digits here, as Python keeps microseconds). Item fingerprints depend on it.
"""

from __future__ import annotations

from datetime import UTC, datetime

from tinymemory._errors import InvalidRequest


def to_utc(value: datetime) -> datetime:
    """Return ``value`` in UTC; a naive datetime is refused, never guessed."""
    if not isinstance(value, datetime):
        raise InvalidRequest(f"a timestamp must be a datetime, not {type(value).__name__}")
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise InvalidRequest("a timestamp must carry a timezone (use datetime.now(timezone.utc))")
    return _in_utc(value)


def _in_utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise InvalidRequest(
            f"timestamp {value.isoformat()} is outside years 1 to 9999 in utc"
        ) from None


def optional_utc(value: datetime | None) -> datetime | None:
    """:func:`to_utc` that lets ``None`` through (for optional fields)."""
    return None if value is None else to_utc(value)


def format_timestamp(value: datetime) -> str:
    """Write ``value`` as RFC 3339 in UTC, chrono-style (``...09Z``, ``...09.250Z``)."""
    value = to_utc(value)
    text = _whole_seconds(value)
    micros = value.microsecond
    if micros % 1000 == 0 and micros:
        text += f".{micros // 1000:03d}"
    elif micros:
        text += f".{micros:06d}"
    return text + "Z"


def format_whole_seconds(value: datetime) -> str:
    """Write ``value`` as RFC 3339 in UTC to the whole second (``...09Z``), any fraction dropped.

    The form tool results and ``context.md`` carry (chrono's ``SecondsFormat::Secs``).
    """
    return _whole_seconds(to_utc(value)) + "Z"


def _whole_seconds(value: datetime) -> str:
    # Not strftime: its %Y does not pad a year below 1000 to four digits.
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
        f"T{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    )


def parse_timestamp(text: str) -> datetime:
    """Read an RFC 3339 timestamp with an offset; the result is in UTC."""
    if not isinstance(text, str):
        raise InvalidRequest("a timestamp must be an rfc 3339 string")
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidRequest(f"`{text}` is not an rfc 3339 timestamp") from None
    if value.tzinfo is None:
        raise InvalidRequest(f"`{text}` is not an rfc 3339 timestamp: it has no offset")
    return _in_utc(value)
