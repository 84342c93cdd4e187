"""Which fonts headless Chromium draws a page's text with, through the DevTools protocol on a pipe.

Chromium's ``--remote-debugging-pipe`` reads NUL-terminated JSON commands on file descriptor 3 and
writes replies and events on descriptor 4 (no port, no extra package). ``CSS.getPlatformFontsForNode``
names, for an element, every platform font its text nodes were drawn with and how many glyphs each
drew: a Chinese character no font of the page's stack (nor any fallback) has is drawn as an empty
box by the first font, so "the CJK glyphs were drawn by a CJK font" is what a test can check.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def browser() -> str | None:
    """The first headless-capable Chromium on PATH, or None."""
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    return None


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf"


class _Pipe:
    def __init__(self, binary: str, timeout_s: float) -> None:
        self._deadline = time.monotonic() + timeout_s
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        self._home = tempfile.mkdtemp(prefix="gpuplan-chromium-")

        def fds() -> None:  # in the child: the pipe ends on the descriptors Chromium expects
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={self._home}", "--window-size=1200,1600", "about:blank"],
            pass_fds=(3, 4),  # after ``fds`` has put the pipe ends there
            preexec_fn=fds,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "HOME": self._home},
        )  # fmt: skip
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._out, self._in = to_chrome_w, from_chrome_r
        self._buf = b""
        self._id = 0
        self.events: list[dict[str, Any]] = []

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = self._deadline - time.monotonic()
            if left <= 0 or not select.select([self._in], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._in, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, event: str) -> None:
        while not any(e.get("method") == event for e in self.events):
            self.events.append(self._read())

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        os.close(self._out)
        os.close(self._in)
        shutil.rmtree(self._home, ignore_errors=True)


def cjk_fonts(binary: str, page: Path, timeout_s: float = 90.0) -> list[tuple[str, int, dict[str, int]]]:
    """For every element whose own text holds Chinese characters: (its text, how many Chinese
    characters, glyphs drawn per font family), as Chromium laid the page out."""
    pipe = _Pipe(binary, timeout_s)
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "DOM", "CSS"):
            pipe.call(f"{domain}.enable", session=session)
        pipe.call("Page.navigate", {"url": page.as_uri()}, session=session)
        pipe.wait_for("Page.loadEventFired")
        root = pipe.call("DOM.getDocument", {"depth": -1, "pierce": True}, session=session)["root"]
        out: list[tuple[str, int, dict[str, int]]] = []

        def walk(node: dict[str, Any]) -> None:
            children = node.get("children") or []
            text = "".join(c.get("nodeValue", "") for c in children if c.get("nodeType") == 3)
            cjk = sum(1 for ch in text if _is_cjk(ch))
            if cjk and node.get("nodeName") not in ("SCRIPT", "STYLE", "TITLE"):
                fonts = pipe.call("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]}, session=session)
                per: dict[str, int] = {}
                for f in fonts["fonts"]:
                    per[f["familyName"]] = per.get(f["familyName"], 0) + int(f["glyphCount"])
                out.append((text.strip()[:40], cjk, per))
            for child in children:
                walk(child)

        walk(root)
        return out
    finally:
        pipe.close()
