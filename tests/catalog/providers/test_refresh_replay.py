"""``catalog refresh --from DIR`` with a folder someone else recorded: it may hold only some
providers, and its files are read within bounds. No test here touches the network."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import open_store
from gpuplan.catalog.providers import PROVIDERS
from gpuplan.catalog.refresh import RefreshOptions, refresh
from gpuplan.cli import app
from one_line import refused

from .conftest import NOW, recorded_api

LATER = "2026-12-01T06:00:00+00:00"


@pytest.fixture(scope="module")
def aws_and_vast(tmp_path_factory: pytest.TempPathFactory, seeded_db: Path) -> Iterator[Path]:
    """A colleague's recording of AWS and Vast.ai only, as ``--save`` writes it."""
    out = tmp_path_factory.mktemp("recorded")
    db = out.parent / "recording.sqlite"
    shutil.copy(seeded_db, db)
    with recorded_api():
        done = refresh(open_store(str(db)), ["aws", "vast"], RefreshOptions(now=NOW, save_dir=out))
    assert [o.status for o in done] == ["ok", "ok"], [o.line() for o in done]
    yield out


def _runs_and_prices(db: Path) -> tuple[int, int]:
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as c:
        [(runs,)] = c.execute("SELECT COUNT(*) FROM refresh_runs").fetchall()
        [(prices,)] = c.execute("SELECT COUNT(*) FROM prices").fetchall()
    return runs, prices


def _refresh(db: Path, *args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["--db", str(db), "catalog", "refresh", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout.strip().splitlines()


def test_a_folder_of_some_providers_refreshes_them_and_skips_the_others_once(
    db_path: Path, aws_and_vast: Path
) -> None:
    # was: a "failed (no saved responses in …/azure (index.json missing))" line for each of the 24
    # providers and the rate the folder does not hold, and exit 1
    code, lines = _refresh(db_path, "--from", str(aws_and_vast))
    by = {ln.split(":")[0]: ln for ln in lines}
    assert by["aws"].startswith("aws: ok") and by["vast"].startswith("vast: ok"), lines
    absent = [p for p in PROVIDERS if p not in ("aws", "vast")] + ["exchange rates"]
    assert sorted(by) == sorted(["aws", "vast", *absent]) and len(lines) == len(by), lines
    for name in absent:
        assert by[name] == f"{name}: not recorded in {aws_and_vast}: skipped", by[name]
    assert code == 0, lines


def test_a_provider_absent_from_the_folder_is_not_recorded_as_a_run(
    db_path: Path, aws_and_vast: Path
) -> None:
    # catalog info keeps saying when azure was last refreshed, not that a replay of others skipped it
    before, _ = _runs_and_prices(db_path)
    _refresh(db_path, "--from", str(aws_and_vast))
    after, _ = _runs_and_prices(db_path)
    assert after == before + 2  # aws and vast


def test_naming_a_provider_the_folder_lacks_is_one_line_and_writes_nothing(
    db_path: Path, aws_and_vast: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _runs_and_prices(db_path)
    line = refused(
        ["--db", str(db_path), "catalog", "refresh", "--from", str(aws_and_vast), "--provider", "aws",
         "--provider", "Azure"],
        capsys,
    )  # fmt: skip
    assert line == (
        f"error: {aws_and_vast} holds no saved responses of azure (it holds aws, vast): leave it out, "
        "or record it with --save"
    ), line
    assert _runs_and_prices(db_path) == before  # aws, named first, was not refreshed either


def test_asking_for_the_rate_from_a_folder_without_it_is_one_line_and_writes_nothing(
    db_path: Path, aws_and_vast: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _runs_and_prices(db_path)
    line = refused(
        [
            "--db",
            str(db_path),
            "catalog",
            "refresh",
            "--from",
            str(aws_and_vast),
            "--provider",
            "vast",
            "--rates",
        ],
        capsys,
    )
    assert f"{aws_and_vast} holds no saved responses of exchange rates (it holds aws, vast)" in line, line
    assert _runs_and_prices(db_path) == before


def test_a_folder_that_holds_no_provider_is_one_line(
    db_path: Path, aws_and_vast: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    line = refused(["--db", str(db_path), "catalog", "refresh", "--from", str(empty)], capsys)
    assert line.startswith(
        f"error: {empty} holds no saved responses: --save writes one folder per provider"
    ), line
    # One provider's own folder given instead of the folder above it: say which to give.
    line = refused(["--db", str(db_path), "catalog", "refresh", "--from", str(aws_and_vast / "aws")], capsys)
    assert line == (
        f"error: {aws_and_vast / 'aws'} holds one provider's saved responses; give the folder above it: "
        f"--from {aws_and_vast}"
    ), line


def test_a_provider_recorded_but_unreadable_still_fails(
    db_path: Path, aws_and_vast: Path, tmp_path: Path
) -> None:
    replay = tmp_path / "replay"
    shutil.copytree(aws_and_vast, replay)
    (replay / "vast" / "index.json").unlink()  # the folder is there: a broken recording, not an absent one
    code, lines = _refresh(db_path, "--from", str(replay), "--provider", "aws", "--provider", "vast")
    assert lines[0].startswith("aws: ok"), lines
    assert lines[1].startswith("vast: failed (no saved responses in"), lines
    assert code == 1


# ---- every answer is read within a cap of its format, the file's size checked before reading ----


def _saved_body(folder: Path, provider: str, suffix: str = "") -> Path:
    """The one saved answer of ``provider`` (with ``suffix`` in its URL) in a replay folder."""
    import json

    index = json.loads((folder / provider / "index.json").read_text())
    [name] = [
        e["file"] for k, e in index.items() if k != "_fetched" and e["url"].split("?")[0].endswith(suffix)
    ]
    return folder / provider / name


def _peak_bytes(fn: object) -> tuple[object, int]:
    """``fn()`` and the most memory Python held while it ran (tracemalloc: allocations, not time)."""
    import tracemalloc

    tracemalloc.start()
    try:
        out = fn()  # type: ignore[operator]
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_sparse_json_answer_past_its_cap_is_refused_by_its_size_unread(
    db_path: Path, aws_and_vast: Path, tmp_path: Path
) -> None:
    # was: read whole (100 MB, three times over: bytes, text, bytes again) before JSON refused it
    replay = tmp_path / "replay"
    shutil.copytree(aws_and_vast, replay)
    body = _saved_body(replay, "vast")
    with body.open("r+b") as f:
        f.truncate(100_000_000)  # sparse: 100 MB by its size, on no disk
    store = open_store(str(db_path))
    outcomes, peak = _peak_bytes(
        lambda: refresh(store, ["vast"], RefreshOptions(now=LATER, replay_dir=replay))
    )
    [vast] = outcomes  # type: ignore[misc]
    assert vast.status == "failed", vast.line()
    assert (
        f"saved response {body.name} is 100,000,000 bytes, more than the 67,108,864 gpuplan reads of a JSON "
        "or XML answer" in vast.line()
    ), vast.line()
    assert "kept the last good data" in vast.line() and "\n" not in vast.line()
    assert peak < 32 * 1024 * 1024, peak  # nothing of the file was held


def test_a_saved_csv_price_list_is_read_line_by_line_within_bounds(
    db_path: Path, aws_and_vast: Path, tmp_path: Path
) -> None:
    # was: the whole file read into memory (and split into a list of lines) before it was parsed
    replay = tmp_path / "replay"
    shutil.copytree(aws_and_vast, replay)
    body = _saved_body(replay, "aws", "index.csv")
    rows = body.read_bytes().count(b"\n")
    with body.open("r+b") as f:
        f.seek(0, 2)
        f.truncate(200_000_000)  # the real rows, then 200 MB of NUL bytes without a line end
    store = open_store(str(db_path))
    outcomes, peak = _peak_bytes(
        lambda: refresh(store, ["aws"], RefreshOptions(now=LATER, replay_dir=replay))
    )
    [aws] = outcomes  # type: ignore[misc]
    assert aws.status == "failed", aws.line()
    line = f"saved response {body.name}: line {rows + 1} is longer than 1,048,576 bytes"
    assert line in aws.line(), aws.line()
    assert peak < 32 * 1024 * 1024, peak
    # Past the cap of a CSV price list (AWS's largest region is about 300 MB): refused by its size.
    with body.open("r+b") as f:
        f.truncate(3 * 1024**3)
    [aws] = refresh(store, ["aws"], RefreshOptions(now=LATER, replay_dir=replay))
    assert (
        f"saved response {body.name} is 3,221,225,472 bytes, more than the 2,147,483,648 gpuplan reads of a "
        "CSV price list" in aws.line()
    ), aws.line()


def test_a_live_answer_past_its_cap_is_refused_while_it_is_read(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from gpuplan.catalog.providers import http as http_module

    monkeypatch.setattr(http_module, "MAX_ANSWER_BYTES", 512)
    with recorded_api() as api:
        # Content-Length says 2,000 bytes: refused before the body is read.
        api.routes["vast"].side_effect = lambda request: httpx.Response(200, content=b" " * 2000)
        [said] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER))
        # No length given (a chunked answer): refused once 512 bytes have come.
        chunks = (b" " * 100 for _ in range(10**6))
        api.routes["vast"].side_effect = lambda request: httpx.Response(200, content=chunks)
        [streamed] = refresh(open_store(str(db_path)), ["vast"], RefreshOptions(now=LATER))
    url = "https://console.vast.ai/api/v0/bundles/"
    assert (
        f"the answer of {url} is 2,000 bytes, more than the 512 gpuplan reads of a JSON or XML answer"
        in said.line()
    ), said.line()
    assert (
        f"the answer of {url} is more than the 512 bytes gpuplan reads of a JSON or XML answer"
        in streamed.line()
    ), streamed.line()
    assert next(chunks, None) is not None  # the rest of the answer was never read


def test_a_live_csv_line_without_an_end_is_refused_at_the_line_cap(db_path: Path) -> None:
    import httpx

    from .conftest import BULK_CSV_URL

    with recorded_api() as api:
        api.routes["aws:bulk-csv"].side_effect = lambda request: httpx.Response(
            200, content=(b"x" * 65536 for _ in range(10**5))
        )
        [aws] = refresh(open_store(str(db_path)), ["aws"], RefreshOptions(now=LATER))
    assert f"the answer of {BULK_CSV_URL}: line 1 is longer than 1,048,576 bytes" in aws.line(), aws.line()


def test_a_provider_folder_with_a_mistyped_name_is_refused_with_did_you_mean(
    db_path: Path, aws_and_vast: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: awss/ skipped without a word, aws refreshed from nothing ("not recorded … skipped")
    replay = tmp_path / "replay"
    shutil.copytree(aws_and_vast, replay)
    (replay / "aws").rename(replay / "awss")
    (replay / "notes").mkdir()  # a folder of the user's own, not saved responses: left alone
    before = _runs_and_prices(db_path)
    for args in ([], ["--provider", "vast"]):
        line = refused(["--db", str(db_path), "catalog", "refresh", "--from", str(replay), *args], capsys)
        # The suggestions are the ones --provider awss gets.
        assert line.startswith("error: unknown provider 'awss'; did you mean 'aws'"), line
        assert line.endswith(f"? (a folder of saved responses in {replay}: rename it, or move it out)"), line
    assert _runs_and_prices(db_path) == before  # nothing refreshed, no run recorded
    # The library refuses it too, before any provider is read.
    with pytest.raises(Exception, match="did you mean 'aws'"):
        refresh(open_store(str(db_path)), [], RefreshOptions(now=NOW, replay_dir=replay))
    assert _runs_and_prices(db_path) == before
