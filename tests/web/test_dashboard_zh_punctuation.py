"""The dashboard's labels end in the page language's colon (full-width "：" in Chinese) and its
"× 3, spot" takes the full-width comma there: they had been "预算: " and "× 3, 抢占式"."""

from __future__ import annotations

import re
from pathlib import Path

import gpuplan.web

APP_JS = (Path(gpuplan.web.__file__).parent / "static" / "app.js").read_text(encoding="utf-8")


def test_the_dashboards_labels_take_the_pages_colon_and_comma() -> None:
    assert 'const colon = lang === "zh" ? "：" : ": ";' in APP_JS
    assert 'const comma = lang === "zh" ? "，" : ", ";' in APP_JS
    # a translated label followed by a half-width colon written into the script
    assert re.findall(r"\$\{(?:t|pricingWords)\([^()`]*\)\}: ", APP_JS) == []
    assert '${t("Budget")}${colon}' in APP_JS
    assert "${rec.nodes || 1}${comma}${t(rec.pricing)}" in APP_JS
