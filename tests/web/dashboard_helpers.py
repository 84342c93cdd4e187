"""What the dashboard's browser tests share: Debian's Chromium driven by Playwright for Python (the
system browser: Playwright cannot download its own here), the service they click through, the
screen sizes, and the screenshots ``GPUPLAN_SCREENSHOTS=docs/images`` writes for the documentation.

Importing this module skips the importing test module, saying why, without Playwright or Chromium
(``GPUPLAN_CHROMIUM`` names one off PATH). The ``browser`` fixture is in ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import make_tokens
from server_process import serving

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is a dev dependency")
CHROMIUM = os.environ.get("GPUPLAN_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no Chromium to click the dashboard in (apt-get install -y chromium fonts-noto-cjk)",
        allow_module_level=True,
    )

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = os.environ.get("GPUPLAN_SCREENSHOTS")


@contextlib.contextmanager
def dashboard(
    folder: Path, seeded_catalog: Path, job_workers: int, prepare: Callable[[Path], None] | None = None
) -> Iterator[tuple[str, dict[str, str]]]:
    """``gpuplan serve`` on a copy of the seeded catalog in ``folder`` with ``job_workers`` job
    threads (0: jobs stay queued); ``prepare(db)`` runs on the copy first. Yields the base URL and
    a token of each scope."""
    db = folder / "catalog.sqlite"
    shutil.copyfile(seeded_catalog, db)
    tokens = make_tokens(str(db))
    if prepare is not None:
        prepare(db)
    with serving(str(db), "--job-workers", str(job_workers), log=folder / "serve.log") as (base, _proc):
        yield base, tokens


def launch_browser() -> Iterator[Any]:
    """Headless Chromium for the fixture (no sandbox: the tests may run as root in a container)."""
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def open_page(page: Any, base: str, name: str, lang: str, token: str) -> None:
    """The dashboard's page ``name`` in ``lang``, with ``token`` pasted as a user would."""
    page.goto(f"{base}/ui/{name}?lang={lang}")
    page.fill("#token", token)
    page.dispatch_event("#token", "change")


def fits(page: Any) -> None:
    """Nothing wider than the screen: wide tables scroll inside their own box."""
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def shot(page: Any, name: str) -> None:
    """``dashboard-{name}.png`` in the GPUPLAN_SCREENSHOTS folder, when it is set."""
    if SHOTS:
        page.evaluate("document.querySelectorAll('.scroll').forEach((e) => { e.scrollLeft = 0; })")
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"dashboard-{name}.png"), full_page=False)
