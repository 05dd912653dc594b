"""Single-precision numbers as the contract writes them.

Confidences and scores are ``f32`` in the original contract. A Python float is
narrowed to the nearest ``f32`` and kept as the float of that value's shortest
decimal, so ``0.8`` stays ``0.8`` (not ``0.800000011920929``) and a JSON round
trip is exact. :func:`format_f32` writes the text serde_json (through ryu)
writes, which item fingerprints depend on.
"""

from __future__ import annotations

import functools
import math
import struct
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Exact arithmetic is for the rare number at the edge of its rounding interval, so the
    # fractions module (and decimal with it) loads with the first such number, not with
    # every process that handles a score.
    from fractions import Fraction


def _narrow(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _bits(value: float) -> int:
    return int(struct.unpack("<I", struct.pack("<f", value))[0])


def _from_bits(bits: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", bits))[0])


def _rounding_interval(magnitude: float) -> tuple[Fraction, Fraction, bool]:
    """The decimals reading back as the positive f32 ``magnitude``: between the
    midpoints to its neighbours, the midpoints included when its mantissa is even.
    """
    from fractions import Fraction

    bits = _bits(magnitude)
    exact = Fraction(magnitude)
    below = Fraction(_from_bits(bits - 1))
    above_value = _from_bits(bits + 1)
    above = exact + (exact - below) if math.isinf(above_value) else Fraction(above_value)
    return (below + exact) / 2, (exact + above) / 2, bits % 2 == 0


def _reads_back(number: Fraction, interval: tuple[Fraction, Fraction, bool]) -> bool:
    low, high, inclusive = interval
    return low < number < high or (inclusive and number in (low, high))


@functools.lru_cache(maxsize=4096)
def _shortest_digits(value: float) -> str:
    """Shortest ``%e`` text that reads back as ``value``'s f32, the closest of those (ryu's).

    The correctly rounded text of each length is tried, checked against the
    f32's rounding interval: through a double when that cannot mislead, exactly
    when the double lands on the interval's edge. At a power of two the
    interval is lopsided, so the nearest text of a length may miss while its
    neighbour reads back (ryu writes 2**-96 as ``1.2621775e-29``, not
    ``1.26217745e-29``): those few values take the exact search.
    """
    target = _narrow(value)
    if target == 0:
        return f"{target:.0e}"
    sign = "-" if target < 0 else ""
    magnitude = abs(target)
    bits = _bits(magnitude)
    if bits & 0x7FFFFF == 0:
        return sign + _shortest_lopsided(magnitude)
    below, above = _from_bits(bits - 1), _from_bits(bits + 1)
    if math.isinf(above):
        above = magnitude + (magnitude - below)
    low, high = (below + magnitude) / 2, (magnitude + above) / 2  # exact: 25 significant bits
    for digits in range(1, 10):
        text = f"{magnitude:.{digits - 1}e}"
        number = float(text)
        if number in (low, high):
            from fractions import Fraction

            if _reads_back(Fraction(text), _rounding_interval(magnitude)):
                return sign + text
        elif low < number < high:
            return sign + text
    return f"{target:.8e}"  # pragma: no cover - 9 digits always suffice for f32


def _shortest_lopsided(magnitude: float) -> str:
    """:func:`_shortest_digits` by exact search: the nearest text of each length or a neighbour."""
    from fractions import Fraction

    exact = Fraction(magnitude)
    interval = _rounding_interval(magnitude)
    for digits in range(1, 10):
        mantissa, _, exponent = f"{magnitude:.{digits - 1}e}".partition("e")
        scale = int(exponent) - (digits - 1)
        nearest = int(mantissa.replace(".", ""))
        best: tuple[int, Fraction] | None = None
        for whole in (nearest, nearest - 1, nearest + 1):  # the nearest wins a tie
            number = whole * Fraction(10) ** scale
            closer = best is None or abs(number - exact) < abs(best[1] - exact)
            if whole > 0 and closer and _reads_back(number, interval):
                best = (whole, number)
        if best is not None:
            text = str(best[0])
            point = f".{text[1:]}" if len(text) > 1 else ""
            return f"{text[0]}{point}e{scale + len(text) - 1:+03d}"
    return f"{magnitude:.8e}"  # pragma: no cover - 9 digits always suffice for f32


def to_f32(value: float) -> float:
    """Narrow ``value`` to f32 and return the float of its shortest decimal."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return float(_shortest_digits(value))
    except OverflowError:
        return math.copysign(math.inf, value)


def _decimal(value: float) -> tuple[str, str, int]:
    """``value``'s shortest f32 decimal as (sign, digits, point): ``0.digits * 10**point``."""
    mantissa, _, exponent = _shortest_digits(value).partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    return sign, digits, int(exponent) + 1


def format_f32(value: float) -> str:
    """Write ``value`` as ryu's shortest f32 form (``0.8``, ``1.0``, ``1e-7``)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError("json has no form for a non-finite number")
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return _format_nonzero(value)


@functools.lru_cache(maxsize=4096)
def _format_nonzero(value: float) -> str:
    """:func:`format_f32` of a finite non-zero ``value`` (cached: ``0.0`` and ``-0.0``,
    which a cache would confuse, never reach it)."""
    sign, digits, point = _decimal(value)
    # The branches are ryu's format32 layout.
    length = len(digits)
    if point - length >= 0 and point <= 13:
        body = digits + "0" * (point - length) + ".0"
    elif 0 < point <= 13:
        body = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        body = "0." + "0" * -point + digits
    else:
        exponent = point - 1
        body = digits[0] + ("." + digits[1:] if length > 1 else "") + f"e{exponent}"
    return sign + body


def display_f32(value: float) -> str:
    """Write ``value`` as Rust's ``{}`` writes an f32, as error messages carry it.

    The shortest f32 digits, never an exponent and no ``.0`` on a whole
    number: ``0.8``, ``-0.1``, ``2``, ``NaN``, ``inf``.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digits, point = _decimal(value)
    if point <= 0:
        body = "0." + "0" * -point + digits
    elif point >= len(digits):
        body = digits + "0" * (point - len(digits))
    else:
        body = digits[:point] + "." + digits[point:]
    return sign + body
