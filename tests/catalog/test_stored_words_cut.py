"""``Cut``: a piece of someone else's text (an error from a price source, a file's name) shown on one
line of the user's terminal, cut to a length: control characters escaped as every other name from
elsewhere is, the text of any language kept as it is."""

from __future__ import annotations

from gpuplan.catalog.stored_words import Cut


def test_control_and_line_characters_are_escaped_and_the_line_kept_whole() -> None:
    assert str(Cut("ReadTimeout\x1b]0;owned\x07 at\nhost", 80)) == "ReadTimeout\\x1b]0;owned\\x07 at host"
    assert str(Cut("a\u2028b\u202ec", 80)) == "a\\u2028b\\u202ec"


def test_chinese_text_and_its_spaces_are_kept() -> None:
    # a full-width space (U+3000) and a no-break space are text, not controls: had been "\u3000"
    assert str(Cut("阿里云\u3000华北 2\xa0价格", 80)) == "阿里云\u3000华北 2\xa0价格"


def test_a_long_piece_is_cut_with_an_ellipsis_at_its_limit() -> None:
    assert str(Cut("x" * 30, 10)) == "x" * 9 + "…"
    assert f"{Cut('abc', 10):>5}" == "  abc"
