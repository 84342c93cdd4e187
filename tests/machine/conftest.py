"""Fixtures for the machine tests: the recorded-shape (constructed) machines under fixtures/."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.machine import MachineFacts

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def load_facts() -> Callable[[str], MachineFacts]:
    """``load_facts("healthy_h100")`` reads ``fixtures/healthy_h100.json`` (constructed, not recorded)."""

    def load(name: str) -> MachineFacts:
        doc = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
        assert "NOT recorded from real hardware" in doc["provenance"]
        return MachineFacts.from_dict(doc["facts"])

    return load
