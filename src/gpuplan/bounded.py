"""Reading files that may come from someone else, within bounds: size, depth, aliases, numbers.

Every file gpuplan reads from the user's command line (workload YAML, plan JSON, a Hugging Face
``config.json``) goes through :func:`read_text` (a price CSV, read as a stream, through
:func:`read_lines`), and YAML and JSON through
:func:`load_yaml` / :func:`load_json`. What they guarantee, each failure being one line of the
caller's own error class:

* only a **regular file** is read (``/dev/zero``, a FIFO or a folder is refused before the first
  byte; opened non-blocking, so a FIFO without a writer cannot hang the open), and at most
  ``max_bytes`` of it (a stream, at most ``max_line_bytes`` per line);
* a path with a NUL byte, too long a name or too many segments is a one-line error, not a crash;
* YAML: nesting deeper than :data:`MAX_DEPTH` and documents of more than :data:`MAX_YAML_NODES`
  values, aliases counted at every use, are refused while parsing: nothing past the limit is read,
  no object is built (a 387-byte "billion laughs" document expands to 10^9 values, a 15 MB list
  holds millions); only the safe loader's tags are understood; a scalar Python cannot make (an
  integer of 5,000 digits, 2023-02-30) is a line naming its place;
* JSON: no ``NaN``/``Infinity``, no number that overflows to infinity, no key given twice in one
  object, no nesting deeper than :data:`MAX_DEPTH`, no string holding a lone surrogate
  (``"\\ud800"``, which no file or terminal can be written with).

This module is the bottom layer (stdlib, PyYAML, and the message catalog's ``N_`` marker).
"""

from __future__ import annotations

import csv
import difflib
import itertools
import json
import math
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Generator, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from gpuplan.errors import GpuplanError, InputError, Phrase
from gpuplan.i18n.messages import N_
from gpuplan.i18n.os_reasons import os_reason

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_CSV_BYTES",
    "MAX_CSV_LINE_BYTES",
    "MAX_CSV_ROWS",
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "MAX_YAML_NODES",
    "csv_problem",
    "decimal_number",
    "load_json",
    "load_yaml",
    "mixed_scripts",
    "other_separator",
    "printable",
    "read_lines",
    "read_text",
    "reading",
    "separator_words",
]

#: Workload and plan files: the largest real one is a few kB (a plan with every option ~100 kB).
MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
#: A Hugging Face config.json is 1-10 kB; the largest on the Hub (with id2label tables) are < 1 MB.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
#: Price CSVs: SkyPilot's whole AWS v8 vms.csv is 3.7 MB; 256 MB leaves room, and the row cap below
#: bounds the work (the file is read as a stream, never whole).
MAX_CSV_BYTES = 256 * 1024 * 1024
#: Rows of a price CSV: SkyPilot's whole AWS v8 vms.csv has about 50,000 (1,933 of them GPU rows,
#: 546 kB; the rest CPU rows of ~60 bytes), its GCP and Azure files fewer. Four times that is read;
#: beyond it the import stops before reading on, nothing imported.
MAX_CSV_ROWS = 200_000
#: A line of a price CSV: a SkyPilot row is ~300 bytes, and the csv module refuses a field over 128 KiB.
MAX_CSV_LINE_BYTES = 1024 * 1024
#: Nesting of mappings and lists: a workload nests 3 deep, a plan 6.
MAX_DEPTH = 64
#: Nodes a YAML document may expand to, aliases counted at every use. A workload has < 200.
MAX_YAML_NODES = 100_000

ErrorClass = type[GpuplanError]

# read_text's messages: English templates the CLI translates (GpuplanError.worded); ``what`` is a
# catalog message too ("workload file"), passed as a Phrase.
_NUL = N_("cannot read {what} {path!r}: the path contains a NUL byte")
_CANNOT_READ = N_("cannot read {what} {path!r}: {why}")
# A missing file is the commonest slip: said in the user's language, not as the C library's
# English strerror (the other OSErrors are worded by gpuplan.i18n.os_reasons).
_NO_FILE = N_("cannot read {what} {path!r}: no such file")
_NO_FILE_NEAR = N_("cannot read {what} {path!r}: no such file; did you mean {near!r}?")
_A_FOLDER = N_("cannot read {what} {path!r}: it is a folder; give the path of a file")
_NOT_A_FILE = N_("cannot read {what} {path!r}: it is not a regular file; give the path of a file")
_TOO_BIG = N_("{what} {path!r} is {size:,} bytes, more than the {limit:,} accepted")
_GREW = N_("{what} {path!r} is more than the {limit:,} bytes accepted")
# TRANSLATORS: a file (or a field) and what is wrong with it
_SOURCE_PROBLEM = N_("{source}: {problem}")
_NOT_UTF8 = N_("{what} {path!r} is not UTF-8 text (byte {byte})")
_LONG_LINE = N_("{what} {path!r} line {line} is longer than {limit:,} bytes")
_NOT_UTF8_LINE = N_("{what} {path!r} line {line} is not UTF-8 text (byte {byte} of the line)")
#: Text that is not UTF-8 but reads as GB 18030 (GBK's superset): the code page Notepad and Excel's
#: plain "CSV" save in on Chinese Windows.
_GBK = N_(
    "{what} {path!r} is not UTF-8 text (byte {byte}): it reads as GBK, as Chinese Windows saves "
    "text by default; save it as UTF-8 (Excel: 'CSV UTF-8')"
)
_GBK_LINE = N_(
    "{what} {path!r} line {line} is not UTF-8 text (byte {byte} of the line): it reads as GBK, as "
    "Chinese Windows saves text by default; save it as UTF-8 (Excel: 'CSV UTF-8')"
)
_TOO_DEEP = N_("line {line}: nested more than {limit} levels deep")


#: Unicode categories that do not print on one line: controls, format characters, line and
#: paragraph separators.
_UNSAFE = ("Cc", "Cf", "Zl", "Zp")


def control_character(text: str) -> str | None:
    """The first character of ``text`` that is not printable on one line — a control (newline,
    ESC's colour and title sequences), a format character (a right-to-left override) or a line or
    paragraph separator — or None. A name or note from someone else's file is shown in terminals
    and reports: such a character would let the file write over them."""
    return next((ch for ch in text if unicodedata.category(ch) in _UNSAFE), None)


def reading(name: str) -> str:
    """How ``name`` reads: NFKC-normalised and case-folded, so that ``BERT``, full-width ``ｂｅｒｔ``,
    mathematical bold ``𝐛𝐞𝐫𝐭`` and ``bert`` read the same (and ``ﬁne`` as ``fine``). Two names a team
    keeps side by side must not read the same."""
    return unicodedata.normalize("NFKC", name).casefold()


#: The alphabets whose letters look alike (Latin ``e``, Cyrillic ``е``, Greek ``ο``): a name may use
#: one of them, not several.
_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def mixed_scripts(name: str) -> tuple[str, ...]:
    """The alphabets of :data:`_LOOKALIKE_SCRIPTS` ``name``'s letters come from, when more than one
    (``bеrt`` with a Cyrillic ``е``: LATIN and CYRILLIC), else ()."""
    found = {
        script
        for ch in unicodedata.normalize("NFKC", name)
        if ch.isalpha()
        for script in _LOOKALIKE_SCRIPTS
        if unicodedata.name(ch, "").startswith(script + " ")
    }
    return tuple(s for s in _LOOKALIKE_SCRIPTS if s in found) if len(found) > 1 else ()


def printable(text: str) -> str:
    """``text`` with each character :func:`control_character` would name written as its escape
    (``\\n``, ``\\x1b``, ``\\u2028``): a name from someone else's file, or a file name, put on one
    line of a file or a terminal stays on that line."""
    if control_character(text) is None:
        return text
    escaped = (
        ch.encode("unicode_escape").decode("ascii") if unicodedata.category(ch) in _UNSAFE else ch
        for ch in text
    )
    return "".join(escaped)


def _near_file(path: Path) -> str | None:
    """The file beside a missing ``path`` whose name is nearest to it (``plan.yml`` for
    ``plan.yaml``), for "did you mean"; None when none is near. Reads at most 2,000 names of the
    folder the user named."""
    try:
        names = [e.name for e in itertools.islice(os.scandir(path.parent or "."), 2000) if e.is_file()]
    except OSError:
        return None
    # Close enough to be a typo of it (a changed extension, a letter or two), not a file that only
    # shares its extension: "missing.csv" does not suggest "gcp.csv".
    hits = difflib.get_close_matches(path.name, names, n=1, cutoff=0.8)
    return str(path.parent / hits[0]) if hits else None


def _open_regular(path: str | Path, what: str, max_bytes: int, error: ErrorClass) -> int:
    """A descriptor on the regular file at ``path`` of at most ``max_bytes``, blocking again."""
    shown, word = str(path)[:200], Phrase(what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except ValueError:  # a NUL byte in the path
        raise error.worded(_NUL, what=word, path=shown) from None
    except FileNotFoundError:
        if (near := _near_file(Path(path))) is not None:
            raise error.worded(_NO_FILE_NEAR, what=word, path=shown, near=near) from None
        raise error.worded(_NO_FILE, what=word, path=shown) from None
    except OSError as e:
        raise error.worded(_CANNOT_READ, what=word, path=shown, why=os_reason(e)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            template = _A_FOLDER if stat.S_ISDIR(info.st_mode) else _NOT_A_FILE
            raise error.worded(template, what=word, path=shown)
        if info.st_size > max_bytes:
            raise error.worded(_TOO_BIG, what=word, path=shown, size=info.st_size, limit=max_bytes)
        os.set_blocking(fd, True)
    except OSError as e:
        os.close(fd)
        raise error.worded(_CANNOT_READ, what=word, path=shown, why=os_reason(e)) from None
    except GpuplanError:
        os.close(fd)
        raise
    return fd


def read_text(path: str | Path, *, what: str, max_bytes: int, error: ErrorClass = InputError) -> str:
    """The UTF-8 text of the regular file at ``path`` (at most ``max_bytes``), or ``error`` in one line.

    ``what`` names the file in messages ("workload file", "plan file", "model.hf_config").
    """
    shown, word = str(path)[:200], Phrase(what)
    fd = _open_regular(path, what, max_bytes, error)
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
    except OSError as e:
        raise error.worded(_CANNOT_READ, what=word, path=shown, why=os_reason(e)) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew while being read
        raise error.worded(_GREW, what=word, path=shown, limit=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        said = _GBK if _reads_as_gbk(data) else _NOT_UTF8
        raise error.worded(said, what=word, path=shown, byte=e.start) from None


def _reads_as_gbk(data: bytes) -> bool:
    """Whether ``data``, not UTF-8, holds Chinese text in GB 18030 (GBK's superset): it decodes so
    and has a CJK character in it (bytes of another code page mostly decode too, as other
    characters)."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return False
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def read_lines(
    path: str | Path, *, what: str, max_bytes: int, max_line_bytes: int, error: ErrorClass = InputError
) -> Generator[str, None, None]:
    """The lines of the regular file at ``path`` (at most ``max_bytes``), each decoded as UTF-8 with
    its line ending, read as a stream: one line of at most ``max_line_bytes`` is held at a time (a
    file without a newline is not read whole). A line too long or not UTF-8 is ``error``, naming it.
    """
    shown, word = str(path)[:200], Phrase(what)
    fd = _open_regular(path, what, max_bytes, error)
    with os.fdopen(fd, "rb") as fh:
        number = 0
        while True:
            try:
                raw = fh.readline(max_line_bytes + 1)
            except OSError as e:
                raise error.worded(_CANNOT_READ, what=word, path=shown, why=os_reason(e)) from None
            if not raw:
                return
            number += 1
            if len(raw) > max_line_bytes:
                raise error.worded(_LONG_LINE, what=word, path=shown, line=number, limit=max_line_bytes)
            try:
                # The first line's byte-order mark (Excel's "CSV UTF-8" writes one) is no character
                # of the file: kept, it becomes part of the first column's name.
                yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as e:
                said = _GBK_LINE if _reads_as_gbk(raw) else _NOT_UTF8_LINE
                raise error.worded(said, what=word, path=shown, line=number, byte=e.start + 1) from None


try:  # libyaml scans ~30x faster than PyYAML's Python reader: a 15 MB file is read in about a second
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _Parser = None  # type: ignore[misc, assignment]


class _TooDeep(Exception):
    pass


class _TooMany(Exception):
    """More than MAX_YAML_NODES values; ``aliases``: whether expanded aliases counted towards them."""

    def __init__(self, aliases: bool) -> None:
        self.aliases = aliases


class _BadValue(Exception):
    """A scalar the safe constructor cannot make (an integer of 5,000 digits, 2023-02-30)."""

    def __init__(self, mark: Any, problem: str) -> None:
        self.mark = mark
        self.problem = problem


class _BoundedComposer(yaml.composer.Composer):
    """Composes nodes from the parser's events and stops at the limits *while* composing: nesting
    deeper than MAX_DEPTH, or more than MAX_YAML_NODES values with every alias counted at each use
    (its anchor's size, known once the anchored node is composed). Nothing past the limit is parsed,
    so a 15 MB file of values or a 387-byte "billion laughs" fails after 100,000 values."""

    if TYPE_CHECKING:  # the parser's, mixed in below

        def check_event(self, *choices: Any) -> bool: ...
        def peek_event(self) -> Any: ...

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._nodes = 0
        self._aliased = False
        self._sizes: dict[int, int] = {}

    def _count(self, n: int) -> None:
        self._nodes += n
        if self._nodes > MAX_YAML_NODES:
            raise _TooMany(self._aliased)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            anchored = self.anchors.get(self.peek_event().anchor)
            if anchored is not None:  # an unknown anchor is the composer's own error, below
                self._aliased = True
                # A recursive alias (inside its own anchor) has no size yet: it counts once, and the
                # safe constructor builds it as a cycle.
                self._count(self._sizes.get(id(anchored), 1))
            return super().compose_node(parent, index)
        self._depth += 1
        before = self._nodes
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise _TooDeep(Phrase(_TOO_DEEP, line=mark.line + 1, limit=MAX_DEPTH))
            self._count(1)
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._sizes[id(node)] = self._nodes - before
        if isinstance(node, yaml.MappingNode):
            seen: set[tuple[str, str]] = set()
            for key, _value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if (key.tag, key.value) in seen:
                        raise _DuplicateKey(key.start_mark, key.value)
                    seen.add((key.tag, key.value))
        return node


class _DuplicateKey(Exception):
    """A mapping that gives one key twice: YAML's loaders keep the last value and say nothing."""

    def __init__(self, mark: Any, key: str) -> None:
        self.mark = mark
        self.key = key


class _BoundedConstructor(yaml.constructor.SafeConstructor):
    """SafeConstructor whose failures on a scalar (Python's ValueError) name the line."""

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError, TypeError) as e:
            raise _BadValue(node.start_mark, str(e).split("; use sys.")[0]) from None


class _PyLoader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    _BoundedComposer,
    _BoundedConstructor,
    yaml.resolver.Resolver,
):
    """PyYAML's own reader, scanner and parser (the reader refuses control characters such as NUL),
    our composer and the safe constructor: where PyYAML was built without libyaml."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        _BoundedComposer.__init__(self)
        _BoundedConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


_BoundedLoader: Any = _PyLoader
if _Parser is not None:

    class _CLoader(_BoundedComposer, _Parser, _BoundedConstructor, yaml.resolver.Resolver):
        """libyaml's parser (it refuses control characters such as NUL), our composer and the safe
        constructor."""

        def __init__(self, stream: str) -> None:
            _Parser.__init__(self, stream)
            _BoundedComposer.__init__(self)
            _BoundedConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    _BoundedLoader = _CLoader


#: A key at the start of a line followed by a full-width colon (U+FF1A) where ':' belongs.
_WIDE_COLON = re.compile(r"^\s*(?:-\s+)?([^\s:：#'\"][^:：#'\"]{0,79}?)\s*：", re.M)


def _full_width_colon(text: str) -> tuple[int, str] | None:
    """(line, key) of the first key followed by a full-width colon, or None."""
    m = _WIDE_COLON.search(text)
    return None if m is None else (text.count("\n", 0, m.start(1)) + 1, m.group(1))


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether the YAML error's mark (0-based ``line``, ``column``) is at a tab in the line's
    indentation."""
    lines = text.splitlines()
    if not 0 <= line < len(lines):
        return False
    indent = lines[line][: len(lines[line]) - len(lines[line].lstrip(" \t"))]
    return "\t" in indent and column <= len(indent)


def load_yaml(text: str, *, source: str, error: ErrorClass = InputError) -> Any:
    """Parse one YAML document with the safe loader, within MAX_DEPTH and MAX_YAML_NODES."""
    loader = None
    try:
        loader = _BoundedLoader(text)  # the reader refuses control characters (NUL …)
        node = loader.get_single_node()
        if node is None:
            return None
        return loader.construct_document(node)
    except _TooMany as e:
        if e.aliases:
            raise error.worded(
                N_(
                    "{source}: YAML aliases expand to more than {limit:,} values; "
                    "this is not a workload file (write the values out)"
                ),
                source=source,
                limit=MAX_YAML_NODES,
            ) from None
        raise error.worded(
            N_(
                "{source}: more than {limit:,} YAML values, the limit of one file; gpuplan's files hold fewer"
            ),
            source=source,
            limit=MAX_YAML_NODES,
        ) from None
    except _TooDeep as e:
        raise error.worded(_SOURCE_PROBLEM, source=source, problem=e.args[0]) from None
    except _DuplicateKey as e:
        raise error.worded(
            N_("{where}: {key!r} is given twice in one mapping (YAML would keep only the last); keep one"),
            where=f"{source}:{e.mark.line + 1}:{e.mark.column + 1}",
            key=e.key[:80],
        ) from None
    except _BadValue as e:
        where = f"{source}:{e.mark.line + 1}:{e.mark.column + 1}"
        raise error.worded(N_("{where}: invalid YAML: {problem}"), where=where, problem=e.problem) from None
    except yaml.YAMLError as e:
        if (wide := _full_width_colon(text)) is not None:
            # What a Chinese input method types after a key: the parser's own words ("could not
            # find expected ':'", a line further down) would not say it.
            line, key = wide
            raise error.worded(
                N_("{where}: {key!r} is followed by a full-width colon '：'; YAML needs ':' (half-width)"),
                where=f"{source}:{line}",
                key=key,
            ) from None
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
        problem = getattr(e, "problem", None) or (str(e).splitlines() or ["invalid YAML"])[0]
        if mark is not None and _tab_at(text, mark.line, mark.column):
            # libyaml's words ("found character that cannot start any token") do not say it is a tab.
            raise error.worded(
                N_("{where}: a tab character indents this line; YAML indents with spaces only"), where=where
            ) from None
        if (
            tag := re.search(r"could not determine a constructor for the tag '([^']{1,200})'", problem)
        ) is not None:
            # The constructor's own words, English inside any language: a tag such as
            # !!python/object/apply makes objects or runs code, and the safe loader reads none.
            raise error.worded(
                N_("{where}: the YAML tag {tag!r} is not read: gpuplan's files hold plain values, no tags"),
                where=where,
                tag=tag.group(1).removeprefix("tag:yaml.org,2002:"),
            ) from None
        if "found another document" in problem:
            # The composer's words ("but found another document"), English inside any language: a
            # stream of several documents, as a Kubernetes manifest often is.
            raise _several_documents(error, text, where) from None
        if mark is not None and "maximum nesting depth" in problem:
            # libyaml's scanner reads flow collections ahead of the composer and stops at 1,000 levels.
            raise error.worded(
                _SOURCE_PROBLEM, source=source, problem=Phrase(_TOO_DEEP, line=mark.line + 1, limit=MAX_DEPTH)
            ) from None
        raise error.worded(N_("{where}: invalid YAML: {problem}"), where=where, problem=problem) from None
    except (ValueError, OverflowError, TypeError) as e:  # a collection the constructor cannot make
        raise error.worded(_SOURCE_PROBLEM, source=source, problem=str(e).split("; use sys.")[0]) from None
    except RecursionError:
        raise error.worded(N_("{source}: nested too deeply"), source=source) from None
    finally:
        if loader is not None:
            loader.dispose()


#: A Kubernetes object's first keys, at the start of a line: ``apiVersion: apps/v1``, ``kind: Deployment``.
_KUBERNETES_KEYS = re.compile(r"^(?:apiVersion|kind)\s*:", re.M)


def _several_documents(error: ErrorClass, text: str, where: str) -> GpuplanError:
    """The refusal of a file of several YAML documents (``---`` between them): gpuplan reads one, and
    a Kubernetes manifest (``apiVersion``, ``kind``) is said to be one, not a workload."""
    if _KUBERNETES_KEYS.search(text):
        return _kubernetes_manifest(error, where, several=True)
    return error.worded(
        N_(
            "{where}: this file holds several YAML documents (separated by ---); gpuplan reads one per "
            "file (a workload is one document): put each in a file of its own"
        ),
        where=where,
    )


def _kubernetes_manifest(error: ErrorClass, where: str, *, several: bool) -> GpuplanError:
    """The refusal of a Kubernetes manifest given where a workload goes, of one document or of
    several (``---`` between them)."""
    if several:
        return error.worded(
            N_(
                "{where}: this file holds several YAML documents (separated by ---) and is a Kubernetes "
                "manifest (apiVersion, kind), not a workload; a workload is one YAML document of "
                "gpuplan's own keys (name, task, model …)"
            ),
            where=where,
        )
    return error.worded(
        N_(
            "{where}: this file is a Kubernetes manifest (apiVersion, kind), not a workload; a workload "
            "is one YAML document of gpuplan's own keys (name, task, model …)"
        ),
        where=where,
    )


#: Top-level keys of a SkyPilot task file beside ``resources`` (https://docs.skypilot.co/en/latest/
#: reference/yaml-spec.html, read 2026-12-07), and of a SkyServe ``service`` section: no workload
#: has any of them at its top level or under a ``service`` key.
_SKYPILOT_TASK_KEYS = frozenset({"run", "setup", "service"})
_SKYSERVE_KEYS = frozenset({"readiness_probe", "replica_policy", "replicas"})


def refuse_foreign_file(data: dict[str, Any], where: str, error: ErrorClass) -> None:
    """A Kubernetes manifest (top-level ``apiVersion`` and ``kind``) or a SkyPilot task file
    (``resources`` with ``run``, ``setup`` or ``service``; or a SkyServe ``service`` section) given
    where a workload goes is refused as what it is, rather than as a workload with an unknown key
    ("did you mean 'precision'?" for ``apiVersion``). A misspelt workload key (``service`` for
    ``serving``) alone is none of these, and keeps its did-you-mean."""
    if "apiVersion" in data and "kind" in data:
        raise _kubernetes_manifest(error, where, several=False)
    service = data.get("service")
    if ("resources" in data and _SKYPILOT_TASK_KEYS & data.keys()) or (
        isinstance(service, dict) and _SKYSERVE_KEYS & service.keys()
    ):
        raise error.worded(
            N_(
                "{where}: this is a SkyPilot task file (resources, run), not a workload; a workload is "
                "one YAML document of gpuplan's own keys (name, task, model …), and `gpuplan deploy "
                "PLAN --target skypilot` writes a task file from its plan"
            ),
            where=where,
        )


#: A number as a price file or a trace writes it: ASCII digits with an optional sign, fraction and
#: exponent, and the words nan and inf(inity), which each caller refuses in its own words. Python's
#: ``float()`` also reads ``1_5`` as 15 and full-width ``１.5`` or Arabic-Indic digits as 1.5.
_DECIMAL = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.IGNORECASE
)


def decimal_number(text: str) -> float:
    """``text`` read as a number of the ASCII decimal grammar above (blanks around it allowed, as
    ``float()`` allows them); ``ValueError`` holding a Phrase ("'1_5' is not a number") otherwise."""
    stripped = text.strip(" \t\r\n")
    if _DECIMAL.fullmatch(stripped) is None:
        raise ValueError(Phrase(N_("{text!r} is not a number"), text=stripped[:40]))
    return float(stripped)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(Phrase(N_("number {number} is out of range"), number=text[:40]))
    return value


#: Digits a JSON whole number may have: far past any count or amount gpuplan reads, and short of
#: Python's own limit on converting one (4,300, whose error speaks of ``sys.set_int_max_str_digits``).
MAX_INT_DIGITS = 100


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(
            Phrase(
                N_("number {number}… has {digits:,} digits, more than the {limit} accepted"),
                number=text[:20],
                digits=len(text.lstrip("-")),
                limit=MAX_INT_DIGITS,
            )
        )
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(Phrase(N_("{name} is not a number gpuplan accepts"), name=name))


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different: ``json.loads`` keeps the last of a key given
    twice and says nothing (a plan's ``"recommended"`` written twice deployed the second), where
    :func:`load_yaml` refuses the same mapping."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(
                    Phrase(
                        N_("{key} is given twice in one object (JSON would keep only the last); keep one"),
                        key=repr(key[:60]),
                    )
                )
            seen.add(key)
    return obj


#: A UTF-16 surrogate alone: JSON's ``"\\ud800"`` decodes to one, which is no character (it cannot be
#: written to a file or a terminal as UTF-8).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _walk(value: Any, limit: int) -> tuple[int, str | None]:
    """(nesting depth, stopping once past ``limit``; the first string holding a lone surrogate)."""
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest, None
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
            item = list(item)  # the keys are strings too
        if isinstance(item, list):
            stack.extend((v, d + 1) for v in item if not isinstance(v, str))
            item = next((v for v in item if isinstance(v, str) and _SURROGATE.search(v)), None)
        if isinstance(item, str) and _SURROGATE.search(item):
            return deepest, item
    return deepest, None


#: What Python's JSON reader says where it stops (CPython 3.11-3.13, ``Modules/_json.c`` and
#: ``Lib/json/decoder.py``), marked for translation: its own words are English only. The English
#: is its own, so that a message in English reads as before.
_JSON_PROBLEMS: Mapping[str, str] = {
    "Expecting value": N_("Expecting value"),
    "Expecting property name enclosed in double quotes": N_(
        "Expecting property name enclosed in double quotes"
    ),
    "Expecting ':' delimiter": N_("Expecting ':' delimiter"),
    "Expecting ',' delimiter": N_("Expecting ',' delimiter"),
    "Unterminated string starting at": N_("Unterminated string starting at"),
    "Invalid control character at": N_("Invalid control character at"),
    "Invalid \\escape": N_("Invalid \\escape"),
    "Invalid \\uXXXX escape": N_("Invalid \\uXXXX escape"),
    "Extra data": N_("Extra data"),
    "Illegal trailing comma before end of object": N_("Illegal trailing comma before end of object"),
    "Illegal trailing comma before end of array": N_("Illegal trailing comma before end of array"),
}


def json_problem(e: json.JSONDecodeError) -> Phrase | str:
    """What Python's JSON reader stopped on, in the user's language (one it is not known to say:
    as it says it)."""
    words = _JSON_PROBLEMS.get(e.msg)
    return e.msg if words is None else Phrase(words)


def load_json(
    text: str, *, source: str | Phrase, error: ErrorClass = InputError, invalid: str | None = None
) -> Any:
    """Parse JSON without NaN, Infinity, overflowing numbers or a key given twice in one object,
    nested at most MAX_DEPTH deep.

    ``source`` names the text in messages (a path, or a Phrase such as "the request body");
    ``invalid``: the message of text that is no JSON, in place of the one naming ``source`` (its
    fields: ``why``, ``line``, ``column``)."""
    try:
        value = json.loads(
            text,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            parse_constant=_no_constant,
            object_pairs_hook=_object,
        )
    except json.JSONDecodeError as e:
        if invalid is not None:
            raise error.worded(invalid, why=json_problem(e), line=e.lineno, column=e.colno) from None
        raise error.worded(
            N_("{source} is not valid JSON ({why} at line {line})"),
            source=source,
            why=json_problem(e),
            line=e.lineno,
        ) from None
    except ValueError as e:  # from the hooks (a Phrase)
        problem = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], Phrase) else str(e)
        raise error.worded(_SOURCE_PROBLEM, source=source, problem=problem) from None
    except RecursionError:
        raise error.worded(
            N_("{source}: nested too deeply (more than {limit} levels)"), source=source, limit=MAX_DEPTH
        ) from None
    depth, surrogate = _walk(value, MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise error.worded(
            N_("{source}: nested too deeply (more than {limit} levels)"), source=source, limit=MAX_DEPTH
        )
    if surrogate is not None:
        raise error.worded(
            N_("{source}: the string {text} holds a lone UTF-16 surrogate, which is not text"),
            source=source,
            text=ascii(surrogate[:60]),
        )
    return value


def csv_problem(e: csv.Error) -> Phrase:
    """What Python's csv reader stopped on, in the user's language: its own line is English only.
    The messages read are CPython's (Modules/_csv.c); one not known here is quoted as it is."""
    text = str(e)
    if text == "unexpected end of data":
        return Phrase(N_("a quoted field is not closed before the end of the file"))
    if m := re.fullmatch(r"'(.)' expected after '(.)'", text):
        return Phrase(
            N_("a closing quote is followed by other text than the delimiter {delimiter}"),
            delimiter=repr(m[1]),
        )
    if m := re.fullmatch(r"field larger than field limit \((\d+)\)", text):
        return Phrase(N_("a field longer than {limit:,} characters, the CSV reader's limit"), limit=int(m[1]))
    if text.startswith("new-line character seen in unquoted field"):
        return Phrase(N_("a line break inside a field without quotes"))
    if text == "line contains NUL":
        return Phrase(N_("a NUL character in the line"))
    return Phrase(N_("Python's csv module says {error}"), error=repr(text))


#: What a spreadsheet saving "CSV" may put between columns instead of a comma: a semicolon where the
#: comma is the decimal mark, a tab for "text (tab-delimited)".
_OTHER_SEPARATORS = (";", "\t")
#: Each of them in words, for a refusal that says what the file holds.
_SEPARATOR_WORDS = {";": N_("semicolons"), "\t": N_("tabs")}


def other_separator(header: str, known: Iterable[str] | Callable[[list[str]], bool]) -> str | None:
    """The separator a one-column header really is several columns by (``provider;region;…``), or
    None: a file saved with semicolons or tabs reads as one unknown column. ``known``: the column
    names every part must be, or a test of the parts (a trace needs only its time column among
    them)."""
    if callable(known):
        fits = known
    else:
        names = set(known)

        def fits(parts: list[str]) -> bool:
            return all(p in names for p in parts)

    for sep in _OTHER_SEPARATORS:
        parts = [p.strip() for p in header.split(sep)]
        if len(parts) > 1 and fits(parts):
            return sep
    return None


def separator_words(sep: str) -> Phrase:
    """A separator :func:`other_separator` found, in words ("tabs", "semicolons")."""
    return Phrase(_SEPARATOR_WORDS[sep])
