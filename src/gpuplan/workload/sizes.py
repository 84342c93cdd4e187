"""Data sizes as users write them: ``2000`` (GB, the field's unit), ``2TB``, ``500 GB``, ``1.5TiB``
→ GB (10⁹ bytes). ``size_gb: 2TB`` had been refused as "not a number" with no word on the unit."""

from __future__ import annotations

import re

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["parse_gigabytes"]

#: GB (10⁹ bytes) per unit, decimal and binary (IEC) prefixes.
_UNIT_GB = {
    "kb": 1e-6,
    "mb": 1e-3,
    "gb": 1.0,
    "tb": 1e3,
    "pb": 1e6,
    "kib": 1024 / 1e9,
    "mib": 1024**2 / 1e9,
    "gib": 1024**3 / 1e9,
    "tib": 1024**4 / 1e9,
    "pib": 1024**5 / 1e9,
}


def parse_gigabytes(value: object) -> object:
    """A size in GB: a number as it is (the field's unit), or a string of one number and a unit
    (``2TB``, ``500 GB``, ``1.5TiB``); other text is refused, saying the units it takes. The field's
    own bounds then check the value."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower().replace(",", "")[:100]
    m = re.fullmatch(r"([-+]?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)\s*([a-z]*)", text)
    if m is not None and not m.group(2):
        return value  # a number written as text: the field reads it
    if m is None or m.group(2) not in _UNIT_GB:
        raise ValueError(
            Phrase(
                N_("write a size in GB, or with its unit: 2000, 2TB, 500GB or 1.5TiB (got {value!r})"),
                value=value,
            )
        )
    return float(m.group(1)) * _UNIT_GB[m.group(2)]
