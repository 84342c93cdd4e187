"""Catalog fixtures: a seeded database built once per session and copied for each test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from gpuplan.catalog import Store, open_store

FIXTURES = Path(__file__).parent / "fixtures"
#: A fixed "today" so that staleness does not change with the calendar.
TODAY = date(2026, 11, 30)


@pytest.fixture(scope="session")
def seeded_db(catalog_template: Path) -> Path:
    """The suite's seeded catalog (tests/conftest.py), which the tests here copy, never write."""
    return catalog_template


@pytest.fixture
def db_path(seeded_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "gpuplan.sqlite"
    shutil.copy(seeded_db, path)
    return path


@pytest.fixture
def store(db_path: Path) -> Iterator[Store]:
    s = open_store(str(db_path), today=TODAY)
    yield s
    s.close()


@pytest.fixture
def empty_store(tmp_path: Path) -> Iterator[Store]:
    """A catalog without the shipped snapshot: for importer tests whose rows the snapshot also has."""
    s = open_store(str(tmp_path / "empty.sqlite"), today=TODAY, seed=False)
    yield s
    s.close()
