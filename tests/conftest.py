"""Suite-wide isolation: no test reads or writes the user's real gpuplan database or data dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    mp = pytest.MonkeyPatch()
    # platformdirs honours XDG_DATA_HOME on Linux: the default database lands under the temp dir.
    mp.setenv("XDG_DATA_HOME", str(Path(home) / "data"))
    mp.setenv("XDG_CACHE_HOME", str(Path(home) / "cache"))
    mp.delenv("GPUPLAN_DB", raising=False)
    mp.delenv("GPUPLAN_USD_PER_CNY", raising=False)
    # Output in English unless a test asks for Chinese, whatever the developer's locale.
    for key in ("GPUPLAN_LANG", "GPUPLAN_CURRENCY", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        mp.delenv(key, raising=False)
    mp.setenv("LANG", "C.UTF-8")
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def _english_and_dollars() -> Iterator[None]:
    """Each test starts in English with amounts in USD, whatever an earlier test's command set, and
    leaves them so: a module-scoped fixture made before the next test's own reset (deploy's
    injection baselines) had been written in the Chinese a test before it left behind."""
    from gpuplan.i18n import Money, set_language, set_money

    set_language("en")
    set_money(Money.usd())
    yield
    set_language("en")
    set_money(Money.usd())
