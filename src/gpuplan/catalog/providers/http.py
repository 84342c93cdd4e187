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
followed out of it) and a regular file of at most :data:`MAX_REPLAY_BYTES` — never a FIFO, a
device or a file elsewhere on this machine.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import stat
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx

from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_json, read_text
from gpuplan.errors import DataError, Phrase
from gpuplan.i18n import N_, _

__all__ = ["Http", "ReplayMissError"]

#: Seconds to wait for a price list server; the AWS bulk files are large, so reads get longer.
_TIMEOUT = httpx.Timeout(30.0, read=300.0)
#: A saved response: AWS's largest per-region bulk CSV is a few hundred MB.
MAX_REPLAY_BYTES = 1024 * 1024 * 1024
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


class Http:
    """One provider's HTTP session. Every response is read whole (the largest, the AWS per-region
    bulk CSV, is streamed line by line through :meth:`lines`)."""

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
                raise ReplayMissError(
                    _("no saved responses in {folder} (index.json missing)").format(folder=self._replay)
                )
            if index.resolve().parent != self._replay.resolve():  # as for every saved response
                raise DataError(
                    _("saved response {name} links out of {folder}").format(
                        name="index.json", folder=self._replay
                    )
                )
            what = Phrase(N_("{provider} replay index"), provider=provider)
            text = _read_saved(index, what, MAX_DOCUMENT_BYTES)
            loaded = load_json(text, source=str(index), error=DataError)
            if not isinstance(loaded, dict) or not all(isinstance(v, dict) for v in loaded.values()):
                raise DataError(
                    _("{index} is not a gpuplan replay index (a mapping of saved responses)").format(
                        index=index
                    )
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

    def _replayed(self, method: str, url: str, body: bytes | None) -> bytes:
        assert self._replay is not None
        entry = self._index.get(_key(method, url, body))
        if entry is None:
            raise ReplayMissError(
                _("{method} {url} is not among the saved responses").format(method=method, url=url)
            )
        name = entry.get("file")
        if not isinstance(name, str) or not _SAVED_NAME.fullmatch(name) or ".." in name:
            raise DataError(
                _(
                    "saved responses are plain file names inside the provider's folder; "
                    "the replay index names {name}"
                ).format(name=repr(str(name)[:60]))
            )
        path = self._replay / name
        if path.resolve().parent != self._replay.resolve():
            raise DataError(
                _("saved response {name} links out of {folder}").format(name=name, folder=self._replay)
            )
        try:
            regular = stat.S_ISREG(path.stat().st_mode)
        except OSError as e:
            raise DataError(
                _("cannot read saved response {name}: {why}").format(name=name, why=e.strerror or e)
            ) from None
        if not regular:  # checked here too, so that the line names the file, not its long path
            raise DataError(_("saved response {name} is not a regular file").format(name=name))
        what = Phrase(N_("{provider} saved response"), provider=self.provider)
        text = _read_saved(path, what, MAX_REPLAY_BYTES)
        return text.encode("utf-8")

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
    ) -> bytes:
        """The body of a successful response (raises httpx.HTTPStatusError on 4xx/5xx).

        ``client_errors``: answers with these 4xx statuses are returned (and saved, so a replay sees
        them too) rather than raised, for APIs that answer "not sold in this region" per item with
        an error body; the caller reads the body and raises when the keys were refused.

        ``vary`` names what tells apart requests with the same URL and body (a region sent in a
        header): it is part of the saved response's key, never sent. ``key_url`` replaces the URL in
        that key (a URL carrying the fetch time, which a replay on another day would not repeat).
        """
        full = str(httpx.URL(url, params=params)) if params else url
        key = key_url or full
        content_key = (content or b"") + b"\n" + vary.encode() if vary else content
        if self._replay is not None:
            return self._replayed(method, key, content_key)
        response = self._http().request(method, full, headers=dict(headers or {}), content=content)
        if response.status_code not in client_errors:
            response.raise_for_status()
        self._keep(method, key, content_key, response.content)
        return response.content

    def get_json(self, url: str, **kw: Any) -> Any:
        body = self.request("GET", url, **kw)
        try:
            return json.loads(body)
        except ValueError as e:
            raise DataError(
                _("{provider}: {url} did not return JSON ({why})").format(
                    provider=self.provider, url=url, why=e
                )
            ) from e

    def post_json(self, url: str, payload: Any, headers: Mapping[str, str] | None = None) -> Any:
        content = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        body = self.request(
            "POST", url, headers={"Content-Type": "application/json", **(headers or {})}, content=content
        )
        try:
            return json.loads(body)
        except ValueError as e:
            raise DataError(
                _("{provider}: {url} did not return JSON ({why})").format(
                    provider=self.provider, url=url, why=e
                )
            ) from e

    def lines(self, url: str) -> Iterator[str]:
        """A text response line by line (the AWS bulk CSV is hundreds of MB: never held whole)."""
        if self._replay is not None:
            yield from self._replayed("GET", url, None).decode("utf-8").splitlines()
            return
        sink = None
        if self._save is not None:
            self._save.mkdir(parents=True, exist_ok=True)
            key = _key("GET", url, None)
            sink = (self._save / f"{key}.body").open("w", encoding="utf-8")
        try:
            with self._http().stream("GET", url) as response:
                response.raise_for_status()
                for line in response.iter_lines():
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
