"""Why the operating system refused to read or write a file, in the reader's language.

An ``OSError``'s ``strerror`` is the C library's English ("Not a directory"): inside a Chinese
message it was the one English phrase ("错误：无法写入报告 …：Not a directory"). The reasons a user meets
when giving a path are said in our words, as catalog messages; any other keeps the system's own
text, as data.
"""

from __future__ import annotations

import errno

from gpuplan.errors import Phrase
from gpuplan.i18n.messages import N_

__all__ = ["os_reason"]

#: The errno values a path given on the command line or in a request commonly meets.
_REASONS = {
    errno.ENOENT: N_("no such file or folder"),
    errno.ENOTDIR: N_("a part of the path is a file, not a folder"),
    errno.EISDIR: N_("it is a folder"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("operation not permitted"),
    errno.EROFS: N_("the file system is read-only"),
    errno.ENOSPC: N_("no space left on the device"),
    errno.EDQUOT: N_("disk quota exceeded"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.ELOOP: N_("a loop of links"),
    errno.EEXIST: N_("it exists already"),
}


def os_reason(e: BaseException) -> str | Phrase:
    """Why ``e`` (an ``OSError``) refused the path: our words for the common reasons, else the
    system's own text, else the error's class name."""
    code = getattr(e, "errno", None)
    if isinstance(code, int) and code in _REASONS:
        return Phrase(_REASONS[code])
    return getattr(e, "strerror", None) or type(e).__name__
