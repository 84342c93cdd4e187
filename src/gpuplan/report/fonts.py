"""The one font stack of every HTML report and SVG chart, with CJK fonts named.

A browser picks, character by character, the first font of the stack that has the glyph, and only
then falls back on its own choice; naming the common Simplified Chinese fonts of each system makes a
Chinese report use one of them where it is installed rather than whatever fallback the browser finds
(or, where its fallback finds none, empty boxes). The families, by system: Linux —
``Noto Sans CJK SC`` / ``Source Han Sans SC`` (Debian ``fonts-noto-cjk``), ``WenQuanYi Micro Hei``
and ``WenQuanYi Zen Hei`` (``fonts-wqy-microhei``, ``fonts-wqy-zenhei``); macOS — ``PingFang SC``,
``Hiragino Sans GB``; Windows — ``Microsoft YaHei``.
"""

from __future__ import annotations

__all__ = ["CJK_FAMILIES", "FONT_STACK"]

#: Simplified Chinese families, most common first on each system (see the module docstring).
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Microsoft YaHei",
)

#: The CSS ``font-family`` value (single quotes, so that it also fits an SVG attribute in double quotes).
FONT_STACK = ", ".join(["system-ui", *(f"'{f}'" for f in CJK_FAMILIES), "sans-serif"])
