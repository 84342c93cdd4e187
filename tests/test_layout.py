"""The test tree stays collectable under pytest's default (``prepend``) import mode."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).parent


def test_each_test_module_has_its_own_basename() -> None:
    # Without __init__.py files, two tests/**/test_x.py modules collide in sys.modules
    # and the second one fails to collect ("import file mismatch") on a clean clone.
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if not (p.parent / "__init__.py").exists())
    assert [n for n, c in names.items() if c > 1] == []
