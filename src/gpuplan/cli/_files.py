"""Writing a file the user named (``--out report.html``, ``catalog export --out``, a trace CSV):
whole or not at all.

The text goes first to a new temporary file beside the target (a random name opened with
``O_EXCL | O_NOFOLLOW``, so a planted link is never written through), is flushed to the disk, and
is then renamed over the target. A write that is interrupted (Ctrl-C, ``kill -9``) or fails (a
full disk) leaves the previous file or none, never half a report; on failure the temporary file is
removed and the error is one line. A target that is there but is not a regular file — a link, a
device such as /dev/null, a pipe — is refused (the rename would put a plain file in its place); a
regular file written again keeps its permission bits.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from gpuplan.errors import InputError, Phrase
from gpuplan.i18n import N_
from gpuplan.i18n.os_reasons import os_reason

__all__ = ["check_writable", "write_text_atomic"]

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


#: What the commands call the files they write (``what=``), as catalog messages.
WHAT_WORDS = (N_("report"), N_("export"), N_("trace"))
_CANNOT_WRITE = N_("cannot write {what} {path}: {why}")


def _existing_mode(path: Path, word: Phrase, shown: str) -> int | None:
    """The permission bits of the regular file at ``path``, None when there is none; anything else
    there (a link, a device such as /dev/null, a pipe, a socket) is refused: a rename would put a
    plain file in its place (as root, over /dev/null itself)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise InputError.worded(_CANNOT_WRITE, what=word, path=shown, why=os_reason(e)) from None
    if stat.S_ISREG(st.st_mode):
        return stat.S_IMODE(st.st_mode)
    kind = Phrase(
        N_("a link")
        if stat.S_ISLNK(st.st_mode)
        else N_("a device")
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
        else N_("a pipe")
        if stat.S_ISFIFO(st.st_mode)
        else N_("not a regular file")
    )
    raise InputError.worded(
        N_("cannot write {what} {path}: it is {kind}, which a written file would replace; give a file path"),
        what=word,
        path=shown,
        kind=kind,
    )


def _target(path: Path, what: str) -> tuple[Path, int | None]:
    """(the resolved folder ``path`` goes in, the mode of the regular file already there or None);
    InputError in one line, naming ``path`` as given, where no file can be written there."""
    shown, word = str(path)[:200], Phrase(what)
    try:
        folder = path.parent.resolve(strict=True)
    except FileNotFoundError:
        # said whole in the user's language: the C library's "No such file or directory" adds nothing
        raise InputError.worded(
            N_("cannot write {what} {path}: its folder is not there"), what=word, path=shown
        ) from None
    except (OSError, RuntimeError) as e:
        reason = os_reason(e) if isinstance(e, OSError) else Phrase(N_("a loop of links"))
        raise InputError.worded(
            N_("cannot write {what} {path}: its folder is not there ({why})"),
            what=word,
            path=shown,
            why=reason,
        ) from None
    if path.is_dir():
        raise InputError.worded(
            N_("cannot write {what} {path}: it is a folder; give a file name"), what=word, path=shown
        )
    return folder, _existing_mode(path, word, shown)


def check_writable(path: Path | None, *, what: str = "report") -> None:
    """Refuse, in one line naming ``path`` as given, an output file that could not be written (its
    folder missing, a folder or a device in its place): the commands that plan or measure first
    call it before that work, so a mistyped ``--out`` costs nothing. Writes nothing."""
    if path is not None:
        _target(path, what)


def write_text_atomic(path: Path, text: str, *, what: str = "report") -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (module docstring); InputError in one line."""
    shown, word = str(path)[:200], Phrase(what)
    folder, mode = _target(path, what)
    temp = folder / f".{path.name[:100]}.{secrets.token_hex(6)}.gpuplan-tmp"
    try:
        # A new file gets the user's umask; a file written again keeps its own mode (a private
        # 0600 export stays private).
        fd = os.open(temp, _NEW_FILE, 0o666)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            with os.fdopen(fd, "wb") as fh:
                fh.write(text.encode("utf-8"))
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
        try:
            os.replace(temp, folder / path.name)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
    except OSError as e:
        raise InputError.worded(_CANNOT_WRITE, what=word, path=shown, why=os_reason(e)) from None
