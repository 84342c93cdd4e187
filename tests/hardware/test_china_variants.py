"""The RTX 4090 D and 5090 D (China-market variants) are not the RTX 4090 and 5090: a name of one is
refused without suggesting the other card, whose estimate would be of another part."""

from __future__ import annotations

import pytest

from gpuplan.errors import NotFoundError
from gpuplan.hardware import resolve_gpu
from gpuplan.i18n import use_language
from gpuplan.i18n.error_text import error_text


@pytest.mark.parametrize("name", ["4090D", "4090d", "RTX 4090 D", "rtx4090d", "GeForce RTX 4090D", "4090-D"])
def test_a_4090_d_is_refused_without_suggesting_the_4090(name: str) -> None:
    with pytest.raises(NotFoundError) as caught:
        resolve_gpu(name)
    # It had been "unknown GPU '4090D'; did you mean 'RTX-4090'?"
    assert caught.value.suggestions == []
    assert "the RTX 4090 D is not in the catalog: it is a different card from the RTX-4090" in str(
        caught.value
    )
    with use_language("zh"):
        line = error_text(caught.value)
    assert "您是不是指" not in line and "RTX 4090 D" in line and "不是同一张卡" in line


def test_the_5090_d_likewise_and_a_d_no_card_has_keeps_its_suggestion() -> None:
    with pytest.raises(NotFoundError) as caught:
        resolve_gpu("5090D")
    assert caught.value.suggestions == [] and "RTX 5090 D" in str(caught.value)
    # no "3090 D" was made: the nearest name stands
    with pytest.raises(NotFoundError) as caught:
        resolve_gpu("3090D")
    assert caught.value.suggestions == ["RTX-3090"]
    assert resolve_gpu("4090").id == "RTX-4090"
