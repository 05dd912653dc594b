"""Single-precision numbers as the contract writes them.

Confidences and scores are ``f32`` in the original contract. A Python float is
narrowed to the nearest ``f32`` and kept as the float of that value's shortest
decimal, so ``0.8`` stays ``0.8`` (not ``0.800000011920929``) and a JSON round
trip is exact. :func:`format_f32` writes the text serde_json (through ryu)
writes, which item fingerprints depend on.
"""

from __future__ import annotations

import math
import struct


def _narrow(value: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def _shortest_digits(value: float) -> str:
    """Shortest ``%e`` text whose f32 rounding gives back ``value``'s f32."""
    target = _narrow(value)
    for digits in range(1, 10):
        text = f"{target:.{digits - 1}e}"
        if _narrow(float(text)) == target:
            return text
    return f"{target:.8e}"  # pragma: no cover - 9 digits always suffice for f32


def to_f32(value: float) -> float:
    """Narrow ``value`` to f32 and return the float of its shortest decimal."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    try:
        return float(_shortest_digits(value))
    except OverflowError:
        return math.copysign(math.inf, value)


def format_f32(value: float) -> str:
    """Write ``value`` as ryu's shortest f32 form (``0.8``, ``1.0``, ``1e-7``)."""
    if math.isnan(value) or math.isinf(value):
        raise ValueError("json has no form for a non-finite number")
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    mantissa, _, exp_text = _shortest_digits(value).partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    # value = 0.digits * 10**point; the branches are ryu's format32 layout
    point = int(exp_text) + 1
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
