"""Writing a generated launch directory: the one place in deploy/ that touches the disk.

The writes are confined to ``--out`` and all-or-nothing:

* every folder below ``--out`` is opened with ``O_NOFOLLOW`` relative to its parent's descriptor,
  so a symbolic link planted inside ``--out`` (``o2/k8s -> /elsewhere``) is refused, never followed,
  and a folder swapped for a link between two checks cannot redirect a write;
* each file is first written to a new temporary name (random, ``O_EXCL | O_NOFOLLOW``: a planted
  ``train.py.gpuplan-tmp`` link is never opened) in its own folder, and only when *every* file has
  been written and flushed are they renamed over their targets. A rename replaces a link that sits
  at the target's name; it does not write through it;
* on any failure (disk full, permission, a file where a folder must be) the temporary files and the
  folders this call created are removed, and the error is one line naming the path.

``--out`` itself may be a link the user made to a folder; it is resolved once, up front.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from gpuplan.deploy.base import GeneratedFile
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_
from gpuplan.i18n.os_reasons import os_reason

__all__ = ["write_files"]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
#: A temporary name `_Batch.stage` makes; one left on disk is the trace of a write that was killed.
_LEFTOVER = re.compile(r"^\..+\.[0-9a-f]{16}\.gpuplan-tmp$")


def _short(path: object) -> str:
    """A path for a one-line message: long ones (thousands of segments) cut in the middle."""
    text = str(path)
    return text if len(text) <= 120 else f"{text[:60]}…{text[-40:]}"


def _relative_parts(path: str) -> tuple[str, ...]:
    """The components of a generated file's relative path; refuses anything that could leave --out."""
    parts = PurePosixPath(path).parts
    if (
        not parts
        or PurePosixPath(path).is_absolute()
        or any(p in ("", ".", "..") or "\x00" in p or "\\" in p for p in parts)
    ):
        # A generator bug, never the user's input.
        raise DeployError.worded(N_("refusing to write outside the output directory: {path!r}"), path=path)
    return parts


def _open_root(out: Path) -> tuple[Path, int, bool]:
    """(resolved --out, its descriptor, whether this call created it)."""
    if "\x00" in str(out):
        raise DeployError.worded(N_("--out contains a NUL byte: choose another --out"))
    created = False
    try:
        if out.is_symlink() and not out.exists():
            raise DeployError.worded(
                N_("--out {out} is a symbolic link to a missing folder: remove it or choose another"),
                out=_short(out),
            )
        if out.exists() and not out.is_dir():
            raise DeployError.worded(
                N_("--out {out} is a file, not a directory: choose another --out"), out=_short(out)
            )
        if not out.exists():
            try:
                out.mkdir(parents=True)
            except FileExistsError:
                pass  # created meanwhile by someone else: fine if it is a folder (checked below)
            else:
                created = True
        real = out.resolve(strict=True)
        fd = os.open(real, _DIR_FLAGS)
    except DeployError:
        raise
    except OSError as e:
        where = e.filename or out
        raise DeployError.worded(
            N_("cannot create --out {out}: {where}: {why}; choose another --out"),
            out=_short(out),
            where=_short(where),
            why=os_reason(e),
        ) from e
    except (ValueError, RuntimeError) as e:  # NUL, a symlink loop
        raise DeployError.worded(
            N_("cannot use --out {out}: {why}; choose another --out"), out=_short(out), why=e
        ) from e
    return real, fd, created


@dataclass
class _Batch:
    """What one write_files call has done so far, so that a failure can undo it."""

    root: Path
    root_fd: int
    dir_fds: dict[tuple[str, ...], int] = field(default_factory=dict)
    created_dirs: list[tuple[str, ...]] = field(default_factory=list)
    temps: list[tuple[int, str, str]] = field(default_factory=list)
    """(folder descriptor, temporary name, final name) of every file written but not yet renamed."""

    def folder(self, parts: tuple[str, ...]) -> int:
        """The descriptor of ``root/parts``, creating folders as needed; never follows a link."""
        if not parts:
            return self.root_fd
        if parts in self.dir_fds:
            return self.dir_fds[parts]
        parent = self.folder(parts[:-1])
        name, shown = parts[-1], self.root.joinpath(*parts)
        try:
            os.mkdir(name, 0o755, dir_fd=parent)
            self.created_dirs.append(parts)
        except FileExistsError:
            pass
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent)
        except OSError as e:
            info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                raise DeployError.worded(
                    N_(
                        "{path} is a symbolic link: refusing to write through it; remove it or choose "
                        "another --out"
                    ),
                    path=_short(shown),
                ) from e
            if not stat.S_ISDIR(info.st_mode):
                raise DeployError.worded(
                    N_("{path} exists and is not a folder: remove it or choose another --out"),
                    path=_short(shown),
                ) from e
            raise
        self.dir_fds[parts] = fd
        return fd

    def stage(self, f: GeneratedFile) -> None:
        parts = _relative_parts(f.path)
        folder = self.folder(parts[:-1])
        name = parts[-1]
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise DeployError.worded(
                N_("{path} is a folder where the file must go: remove it or choose another --out"),
                path=_short(self.root / f.path),
            )
        temp = f".{name}.{secrets.token_hex(8)}.gpuplan-tmp"  # the shape _LEFTOVER matches
        fd = os.open(temp, _NEW_FILE_FLAGS, 0o600, dir_fd=folder)
        self.temps.append((folder, temp, name))
        with os.fdopen(fd, "wb") as fh:
            fh.write(f.content.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), 0o755 if f.executable else 0o644)

    def commit(self) -> None:
        while self.temps:
            folder, temp, name = self.temps[0]
            os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            self.temps.pop(0)

    def undo(self) -> None:
        for folder, temp, _ in self.temps:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
        self.temps.clear()
        for parts in reversed(self.created_dirs):
            with contextlib.suppress(OSError):
                os.rmdir(parts[-1], dir_fd=self.folder(parts[:-1]))

    def close(self) -> None:
        for fd in self.dir_fds.values():
            os.close(fd)
        self.dir_fds.clear()
        os.close(self.root_fd)


def write_files(files: list[GeneratedFile], out_dir: str | Path, *, force: bool = False) -> list[Path]:
    """Write ``files`` under ``out_dir`` (all or nothing); returns their paths.

    An existing, non-empty ``out_dir`` is refused unless ``force``: then the generated files replace
    their namesakes and every other file is left alone (nothing is deleted).
    """
    out = Path(out_dir)
    try:
        leftovers = _leftovers(out)
        non_empty = leftovers is None
    except OSError as e:
        raise DeployError.worded(
            N_("cannot read --out {out}: {why}; choose another --out"), out=_short(out), why=os_reason(e)
        ) from e
    if non_empty and not force:
        raise DeployError.worded(
            N_(
                "output directory {out} exists and is not empty: "
                "choose another --out, or pass --force to overwrite"
            ),
            out=_short(out),
        )
    for f in files:
        _relative_parts(f.path)
    root, root_fd, created_root = _open_root(out)
    batch = _Batch(root=root, root_fd=root_fd)
    try:
        for f in files:
            batch.stage(f)
        batch.commit()
    except BaseException as e:
        batch.undo()
        batch.close()
        if created_root:
            with contextlib.suppress(OSError):
                out.rmdir()
        if isinstance(e, OSError):
            raise DeployError.worded(
                N_("cannot write the launch files into {out}: {why} (nothing was written)"),
                out=_short(root),
                why=os_reason(e),
            ) from e
        raise
    batch.close()
    for path in leftovers or ():
        with contextlib.suppress(OSError):
            path.unlink()
    return [out / f.path for f in files]


def _leftovers(out: Path) -> list[Path] | None:
    """The temporary files a killed earlier write left in ``out`` (``[]`` for an empty or missing
    folder), or None when ``out`` holds anything else: a folder holding only those still counts
    as empty, so a deploy killed half-way can be run again without ``--force``."""
    if not out.is_dir():
        return []
    found: list[Path] = []
    for folder, dirs, names in os.walk(out, followlinks=False):
        if any(Path(folder, d).is_symlink() for d in dirs):
            return None
        for name in names:
            path = Path(folder, name)
            if not (_LEFTOVER.match(name) and stat.S_ISREG(path.lstat().st_mode)):
                return None
            found.append(path)
    return found
