"""HTTP for fetchers: live (httpx), live and saved to a folder, or replayed from a folder.

``--save DIR`` keeps every raw response body in ``DIR/<provider>/`` with an ``index.json`` that maps
each request (method, URL, body) to its file and says when they were fetched (``_fetched``: a
replay dates its prices then, not on the day it runs), atomically per provider: responses go to a hidden
``DIR/.<provider>.partial-*`` folder that replaces ``DIR/<provider>/`` only when the provider's
fetch completes (:meth:`Http.commit`), so a fetch that fails half-way leaves the last complete
save as it was; ``--from DIR`` answers the same requests from those
files without touching the network, so an air-gapped team can refresh from files fetched elsewhere.

A replay folder may come from someone else: its ``index.json`` is read within bounds, and each file
it names must be a plain name inside the provider's folder (no ``/``, no ``..``; links are not
followed out of it) and a regular file — never a FIFO, a device or a file elsewhere on this machine.

Every answer, live or replayed, is read within the cap of its format, and never more of it: an
answer read whole (JSON, XML) at most :data:`MAX_ANSWER_BYTES`; a price list read line by line
(AWS's bulk CSV) at most :data:`MAX_LINES_BYTES`, one line of at most :data:`MAX_LINE_BYTES` held at
a time. A saved file's size, or a live answer's ``Content-Length``, is checked before the first
byte is read; an answer that gives no length is refused as soon as it passes the cap.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

import httpx

from gpuplan.bounded import MAX_CSV_LINE_BYTES, MAX_DOCUMENT_BYTES, load_json, read_text
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_
from gpuplan.i18n.os_reasons import os_reason

__all__ = ["MAX_ANSWER_BYTES", "MAX_LINES_BYTES", "MAX_LINE_BYTES", "Http", "ReplayMissError", "parse_answer"]

#: Seconds to wait for a price list server; the AWS bulk files are large, so reads get longer.
_TIMEOUT = httpx.Timeout(30.0, read=300.0)
#: An answer read whole (JSON, XML). The largest the fetchers ask for: Vast.ai's search of up to
#: 5,000 offers (each an object of about 70 fields, 2-3 kB: some 15 MB), then a GCP page of up to
#: 5,000 SKUs (~1 kB each) and AWS's Spot Instance Advisor feed (922 kB as of 2025-06). Four times
#: the largest; the ECB's rate file, 1.6 kB, has its own cap (``rates.MAX_RATES_BYTES``).
MAX_ANSWER_BYTES = 64 * 1024 * 1024
#: A price list read line by line: AWS's bulk price-list CSV of one region, about 300 MB for
#: us-east-1, the largest (and growing as instance types are added). Read as a stream, it is never
#: held whole, so the cap bounds the time and disk a refresh spends, not its memory: about seven
#: times the largest today.
MAX_LINES_BYTES = 2 * 1024 * 1024 * 1024
#: One line of such a price list: an AWS bulk CSV row is about 1 kB (some 90 short columns), and
#: the csv module refuses a field over 128 KiB.
MAX_LINE_BYTES = MAX_CSV_LINE_BYTES
#: Bytes read from a file or a connection at a time.
_CHUNK = 1024 * 1024
#: What each cap is of, as the refusal says it.
_WHOLE = N_("a JSON or XML answer")
_LINES = N_("a CSV price list")
_IS_TOO_BIG = N_("{source} is {size:,} bytes, more than the {limit:,} gpuplan reads of {kind}")
_GOES_PAST = N_("{source} is more than the {limit:,} bytes gpuplan reads of {kind}")
_LONG_LINE = N_("{source}: line {line} is longer than {limit:,} bytes")
_NOT_TEXT = N_("{source} is not JSON text (byte {byte} is no character)")
_NOT_UTF8_LINE = N_("{source}: line {line} is not UTF-8 text (byte {byte} of the line)")
#: What a saved response's file is called (``_keep`` writes ``<24 hex>.body``); plain names only.
_SAVED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
#: The index entry that says when the responses were fetched (no request key: those are hex).
_FETCHED = "_fetched"


class ReplayMissError(DataError):
    """A replayed refresh asked for a response the folder does not hold."""


def _read_saved(path: Path, what: Phrase, max_bytes: int) -> str:
    """``read_text`` of a saved file, its line naming the file with ``what`` (a Phrase with the
    provider in it, so that the words around the name are written in the user's language too)."""
    try:
        return read_text(path, what=str(what), max_bytes=max_bytes, error=DataError)
    except DataError as e:
        if not e.template or "what" not in e.fields:
            raise
        raise DataError.worded(e.template, **{**e.fields, "what": what}) from None


def _key(method: str, url: str, body: bytes | None) -> str:
    h = hashlib.sha256(f"{method} {url}\n".encode())
    if body:
        h.update(body)
    return h.hexdigest()[:24]


def _capped(chunks: Iterable[bytes], source: Phrase, limit: int, kind: str) -> Iterator[bytes]:
    """``chunks`` as they come, :class:`DataError` as soon as they pass ``limit`` bytes in all."""
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise DataError.worded(_GOES_PAST, source=source, limit=limit, kind=Phrase(kind))
        yield chunk


def _whole(chunks: Iterable[bytes], source: Phrase, limit: int) -> bytes:
    return b"".join(_capped(chunks, source, limit, _WHOLE))


def _lines(chunks: Iterable[bytes], source: Phrase, limit: int) -> Iterator[str]:
    """The lines of ``chunks`` (split at ``\n``, a ``\r`` before it dropped), decoded as UTF-8,
    at most :data:`MAX_LINE_BYTES` held at a time and ``limit`` bytes read in all."""
    pending = b""
    number = 0

    def line(raw: bytes) -> str:
        try:
            return raw.removesuffix(b"\r").decode("utf-8")
        except UnicodeDecodeError as e:
            raise DataError.worded(_NOT_UTF8_LINE, source=source, line=number, byte=e.start + 1) from None

    for chunk in _capped(chunks, source, limit, _LINES):
        pending += chunk
        *done, pending = pending.split(b"\n")
        for raw in done:
            number += 1
            if len(raw) > MAX_LINE_BYTES:
                raise DataError.worded(_LONG_LINE, source=source, line=number, limit=MAX_LINE_BYTES)
            yield line(raw)
        if len(pending) > MAX_LINE_BYTES:
            raise DataError.worded(_LONG_LINE, source=source, line=number + 1, limit=MAX_LINE_BYTES)
    if pending:
        number += 1
        yield line(pending)


def _chunks(fh: IO[bytes]) -> Iterator[bytes]:
    while chunk := fh.read(_CHUNK):
        yield chunk


class Http:
    """One provider's HTTP session. An answer is read whole within :data:`MAX_ANSWER_BYTES`; the
    largest, the AWS per-region bulk CSV, is streamed line by line through :meth:`lines`."""

    def __init__(
        self,
        provider: str,
        *,
        client: httpx.Client | None = None,
        save_dir: Path | None = None,
        replay_dir: Path | None = None,
    ) -> None:
        self.provider = provider
        self._client = client
        self._final = save_dir / provider if save_dir else None
        self._save = save_dir / f".{provider}.partial-{uuid.uuid4().hex[:8]}" if save_dir else None
        self._replay = replay_dir / provider if replay_dir else None
        self._index: dict[str, dict[str, str]] = {}
        self.saved_at: str | None = None
        """A replay: when its responses were fetched, as the folder says (None: it does not say)."""
        if self._replay is not None:
            index = self._replay / "index.json"
            if not index.is_file():
                raise ReplayMissError.worded(
                    N_("no saved responses in {folder} (index.json missing)"), folder=self._replay
                )
            if index.resolve().parent != self._replay.resolve():  # as for every saved response
                raise DataError.worded(
                    N_("saved response {name} links out of {folder}"), name="index.json", folder=self._replay
                )
            what = Phrase(N_("{provider} replay index"), provider=provider)
            text = _read_saved(index, what, MAX_DOCUMENT_BYTES)
            loaded = load_json(text, source=str(index), error=DataError)
            if not isinstance(loaded, dict) or not all(isinstance(v, dict) for v in loaded.values()):
                raise DataError.worded(
                    N_("{index} is not a gpuplan replay index (a mapping of saved responses)"), index=index
                )
            self._index = loaded
            stamp = loaded.get(_FETCHED, {}).get("at")
            self.saved_at = stamp if isinstance(stamp, str) else None if stamp is None else repr(stamp)[:40]

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=_TIMEOUT, follow_redirects=True)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def commit(self, fetched_at: str | None = None) -> None:
        """Make this session's saved responses the provider's saved set (``--save``), replacing the
        previous one; nothing happens when nothing was saved. ``fetched_at`` (an ISO time) goes into
        the index, so that a replay dates the prices when they were read, not when replayed."""
        if self._save is None or self._final is None or not self._save.is_dir():
            return
        if fetched_at is not None:
            self._index[_FETCHED] = {"at": fetched_at}
            (self._save / "index.json").write_text(
                json.dumps(self._index, indent=1, sort_keys=True), encoding="utf-8"
            )
        old = self._final.with_name(f".{self.provider}.old-{uuid.uuid4().hex[:8]}")
        if self._final.exists():
            self._final.rename(old)
        self._save.rename(self._final)
        shutil.rmtree(old, ignore_errors=True)

    def discard(self) -> None:
        """Drop the responses saved by a fetch that did not complete."""
        if self._save is not None:
            shutil.rmtree(self._save, ignore_errors=True)

    def _saved(
        self, method: str, url: str, body: bytes | None, limit: int, kind: str
    ) -> tuple[IO[bytes], Phrase]:
        """The saved answer to a request, open for reading (a regular file inside the provider's
        folder, of at most ``limit`` bytes: its size is checked before a byte is read), and how
        messages name it."""
        assert self._replay is not None
        entry = self._index.get(_key(method, url, body))
        if entry is None:
            raise ReplayMissError.worded(
                N_("{method} {url} is not among the saved responses"), method=method, url=url
            )
        name = entry.get("file")
        if not isinstance(name, str) or not _SAVED_NAME.fullmatch(name) or ".." in name:
            raise DataError.worded(
                N_(
                    "saved responses are plain file names inside the provider's folder; "
                    "the replay index names {name}"
                ),
                name=repr(str(name)[:60]),
            )
        path = self._replay / name
        if path.resolve().parent != self._replay.resolve():
            raise DataError.worded(
                N_("saved response {name} links out of {folder}"), name=name, folder=self._replay
            )
        source = Phrase(N_("saved response {name}"), name=name)
        try:
            # Non-blocking, so that a FIFO put in the file's place cannot hang the open.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as e:
            raise DataError.worded(
                N_("cannot read saved response {name}: {why}"), name=name, why=os_reason(e)
            ) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):  # the line names the file, not its long path
                raise DataError.worded(N_("saved response {name} is not a regular file"), name=name)
            if info.st_size > limit:  # a sparse file of 1 GB is refused by its size, unread
                raise DataError.worded(
                    _IS_TOO_BIG, source=source, size=info.st_size, limit=limit, kind=Phrase(kind)
                )
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb"), source
        except BaseException:
            os.close(fd)
            raise

    def _replayed(self, method: str, url: str, body: bytes | None, limit: int) -> bytes:
        fh, source = self._saved(method, url, body, limit, _WHOLE)
        with fh:
            return _whole(_chunks(fh), source, limit)  # a file that grew past its size is cut off too

    def _keep(self, method: str, url: str, body: bytes | None, content: bytes) -> None:
        if self._save is None:
            return
        self._save.mkdir(parents=True, exist_ok=True)
        key = _key(method, url, body)
        name = f"{key}.body"
        (self._save / name).write_bytes(content)
        self._index[key] = {"method": method, "url": url, "file": name}
        (self._save / "index.json").write_text(
            json.dumps(self._index, indent=1, sort_keys=True), encoding="utf-8"
        )

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        content: bytes | None = None,
        vary: str = "",
        key_url: str | None = None,
        client_errors: tuple[int, ...] = (),
        max_bytes: int | None = None,
    ) -> bytes:
        """The body of a successful response (raises httpx.HTTPStatusError on 4xx/5xx), of at most
        ``max_bytes`` (None: :data:`MAX_ANSWER_BYTES`; :class:`DataError` past it, the rest unread).

        ``client_errors``: answers with these 4xx statuses are returned (and saved, so a replay sees
        them too) rather than raised, for APIs that answer "not sold in this region" per item with
        an error body; the caller reads the body and raises when the keys were refused.

        ``vary`` names what tells apart requests with the same URL and body (a region sent in a
        header): it is part of the saved response's key, never sent. ``key_url`` replaces the URL in
        that key (a URL carrying the fetch time, which a replay on another day would not repeat).
        """
        limit = MAX_ANSWER_BYTES if max_bytes is None else max_bytes
        full = str(httpx.URL(url, params=params)) if params else url
        key = key_url or full
        content_key = (content or b"") + b"\n" + vary.encode() if vary else content
        if self._replay is not None:
            return self._replayed(method, key, content_key, limit)
        with self._http().stream(method, full, headers=dict(headers or {}), content=content) as response:
            if response.status_code not in client_errors:
                response.raise_for_status()
            source = _answer_of(url)
            _check_length(response, source, limit, _WHOLE)
            body = _whole(response.iter_bytes(), source, limit)
        self._keep(method, key, content_key, body)
        return body

    def parse_json(self, body: bytes, url: str) -> Any:
        """A body this client fetched from ``url`` as JSON, within :func:`parse_answer`'s bounds (for
        the signed APIs that read their answers from :meth:`request`)."""
        return parse_answer(body, url)

    def get_json(self, url: str, **kw: Any) -> Any:
        return parse_answer(self.request("GET", url, **kw), url)

    def post_json(self, url: str, payload: Any, headers: Mapping[str, str] | None = None) -> Any:
        content = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        body = self.request(
            "POST", url, headers={"Content-Type": "application/json", **(headers or {})}, content=content
        )
        return parse_answer(body, url)

    def lines(self, url: str) -> Iterator[str]:
        """A text response line by line, within :data:`MAX_LINES_BYTES` (the AWS bulk CSV is
        hundreds of MB: never held whole, live or replayed)."""
        limit = MAX_LINES_BYTES
        if self._replay is not None:
            fh, source = self._saved("GET", url, None, limit, _LINES)
            with fh:
                yield from _lines(_chunks(fh), source, limit)
            return
        sink = None
        if self._save is not None:
            self._save.mkdir(parents=True, exist_ok=True)
            key = _key("GET", url, None)
            sink = (self._save / f"{key}.body").open("w", encoding="utf-8")
        try:
            with self._http().stream("GET", url) as response:
                response.raise_for_status()
                source = _answer_of(url)
                _check_length(response, source, limit, _LINES)
                for line in _lines(response.iter_bytes(), source, limit):
                    if sink is not None:
                        sink.write(line + "\n")
                    yield line
        finally:
            if sink is not None:
                sink.close()
                key = _key("GET", url, None)
                self._index[key] = {"method": "GET", "url": url, "file": f"{key}.body"}
                (self._save / "index.json").write_text(  # type: ignore[operator]
                    json.dumps(self._index, indent=1, sort_keys=True), encoding="utf-8"
                )


def parse_answer(body: bytes, url: str) -> Any:
    """A JSON answer of ``url``, live or replayed, read as every price source reads one: no
    ``NaN``/``Infinity``, no number that overflows, no key given twice, at most
    :data:`~gpuplan.bounded.MAX_DEPTH` levels deep (``json.loads`` takes all of these, and a
    document nested past Python's stack a RecursionError); :class:`DataError` in one line naming the
    answer otherwise."""
    source = _answer_of(url)
    try:
        # The encodings json.loads reads bytes in (RFC 8259 allows UTF-16 and UTF-32 too).
        text = body.decode(json.detect_encoding(body), "surrogatepass")
    except UnicodeDecodeError as e:
        raise DataError.worded(_NOT_TEXT, source=source, byte=e.start) from None
    return load_json(text, source=source, error=DataError)


def _answer_of(url: str) -> Phrase:
    """How a refusal names a live answer: its URL without the query (which may carry keys)."""
    return Phrase(N_("the answer of {url}"), url=url.split("?")[0][:200])


def _check_length(response: httpx.Response, source: Phrase, limit: int, kind: str) -> None:
    """Refuse an answer whose ``Content-Length`` is past ``limit`` before reading its body."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > limit:
        raise DataError.worded(_IS_TOO_BIG, source=source, size=int(declared), limit=limit, kind=Phrase(kind))
