"""Standard output on a terminal or pipe that cannot encode every character.

``PYTHONIOENCODING=ascii``, a latin-1 locale, a Windows code page: gpuplan writes en dashes, ¥, ×
and Chinese, and Python's stdout stopped the command with a UnicodeEncodeError traceback (stderr
escapes what it cannot encode: its error handler is ``backslashreplace``). Such a stream writes each
character it cannot encode as ``\\uXXXX`` (UTF-16 code units, a surrogate pair past U+FFFF): what a
reader of the table sees as an escape, and inside a ``--json`` document JSON's own escape, so the
document still parses to the same text.
"""

from __future__ import annotations

import codecs
import contextlib
import sys

__all__ = ["ESCAPE_ERRORS", "tolerant_streams"]

#: The codec error handler: each character a stream cannot encode, as JSON's ``\uXXXX``.
ESCAPE_ERRORS = "gpuplan.json-escape"


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    units = error.object[error.start : error.end].encode("utf-16-be")
    escaped = "".join(f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))
    return escaped, error.end


codecs.register_error(ESCAPE_ERRORS, _json_escape)


def tolerant_streams() -> None:
    """stdout and stderr write what their encoding cannot hold escaped, not as a traceback."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "")
        if encoding in ("utf8", "utf16", "utf32", "gb18030"):
            continue  # every character encodes
        with contextlib.suppress(AttributeError, ValueError, OSError):  # not a text stream we own
            stream.reconfigure(errors=ESCAPE_ERRORS)  # type: ignore[union-attr]
