"""Token names as an operator gives them: printable, one alphabet, none reading as another's."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuplan.catalog import open_store
from gpuplan.catalog.team_store import TeamStore
from gpuplan.errors import InputError


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("ali\x1b[31mce", "give 1 to 64 printable characters"),  # a colour sequence in `token list`
        ("\u202eecila", "give 1 to 64 printable characters"),  # a right-to-left override: "alice"
        ("\u0430lice", "mixes Latin, Cyrillic letters"),  # a Cyrillic а
        ("Alice", "a token named 'alice' exists"),
        ("ａｌｉｃｅ", "a token named 'alice' exists"),
    ],
)
def test_a_token_name_that_prints_or_reads_as_another_is_refused(
    tmp_path: Path, name: str, said: str
) -> None:
    store = open_store(str(tmp_path / "c.sqlite"), seed=False)
    try:
        team = TeamStore(store.engine)
        team.create_token("alice", "read")
        with pytest.raises(InputError, match=said.replace("(", r"\(")):
            team.create_token(name, "read")
    finally:
        store.close()
