"""Numbers written as powers of ten: "3e-4", "3 × 10^-4", and "10-9" as PDFs give "10⁻⁹".

``claim_powers`` finds them in a claim (the "e" and "× 10^" forms an answer
writes), with offsets, value and precision; ``excerpt_powers`` in an excerpt,
where a PDF's text also gives a superscript power as "10-9" (the minus read as
a hyphen), with or without a mantissa. ``figures`` turns them into figures and
numbers. Nothing here compares them.
"""

from __future__ import annotations

import re

_CLAIM = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*[eE]\s*|\s*[×x·*]\s*10\s*(?:\^|\*\*)\s*)([-+]?)(\d{1,2})\b"
)
_EXCERPT = re.compile(
    r"(?<![\w.])(?:(\d+(?:\.\d+)?)\s*[×x·*]\s*)?10\s*(?:\^|\*\*)?\s*(-)\s*(\d{1,2})(?!\d)"
    r"|(?<![\w.])(\d+(?:\.\d+)?)[eE]([-+]?)(\d{1,2})\b"
)


def _value(mantissa: str, sign: str, power: str) -> float:
    return float(mantissa) * 10.0 ** (-int(power) if sign == "-" else int(power))


def claim_powers(text: str) -> list[tuple[int, int, str, float, int]]:
    """(start, end, as written, value, decimals) of each power of ten in ``text``
    (normalised): "3e-4" is 0.0003 to 4 decimals, its mantissa's precision."""
    out = []
    for m in _CLAIM.finditer(text):
        mantissa, sign, power = m.group(1), m.group(2), m.group(3)
        exponent = -int(power) if sign == "-" else int(power)
        frac = len(mantissa.split(".")[1]) if "." in mantissa else 0
        value = _value(mantissa, sign, power)
        out.append((m.start(), m.end(), m.group(), value, max(0, frac - exponent)))
    return out


def excerpt_powers(text: str) -> list[float]:
    """The values of the powers of ten ``text`` (normalised) writes ("3 × 10-4", "10-9")."""
    out = []
    for m in _EXCERPT.finditer(text):
        if m.group(3) is not None:
            out.append(_value(m.group(1) or "1", m.group(2), m.group(3)))
        else:
            out.append(_value(m.group(4), m.group(5), m.group(6)))
    return out
