"""Models from the user's code: the entry-point protocol, their errors, and a clean sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from gpuplan.errors import UserCodeError
from gpuplan.profile import trace
from gpuplan.workload import Workload

FIXTURES = Path(__file__).parent / "fixtures"


def test_user_model_traces_and_leaves_sys_path_clean() -> None:
    before_path = list(sys.path)
    p = trace(FIXTURES / "user_model.yaml")
    # TinyLM: embed 512·64 + 4 blocks × (LN 128 + 64·256+256 + 256·64+64) + head 64·512+512
    assert p.params == 512 * 64 + 4 * (128 + 64 * 256 + 256 + 256 * 64 + 64) + 64 * 512 + 512
    assert p.trainable_params == p.params
    assert p.shape.family == "custom" and p.shape.num_layers == 4
    assert any("gradient checkpointing: 4 blocks" in n for n in p.notes)
    assert sys.path == before_path
    assert not [m for m in sys.modules if m.startswith("mymodels")]


def test_seq_len_is_passed_to_make_inputs_when_it_accepts_it() -> None:
    p = trace(FIXTURES / "user_model.yaml")
    assert p.seq_len == 32
    embedding_reads = [r for r in p.ops if r.op == "aten.embedding" and r.phase == "forward"]
    # one call on a (4, 32) int64 id tensor → output (4, 32, 64) in fp32
    assert embedding_reads and embedding_reads[0].count == 1


def test_import_failure_carries_only_the_user_traceback() -> None:
    with pytest.raises(UserCodeError) as e:
        trace(FIXTURES / "user_broken.yaml")
    assert str(e.value) == "importing mymodels.broken failed (broken.py:6): KeyError: 'depth'"
    tb = e.value.user_traceback
    assert "broken.py" in tb and "KeyError: 'depth'" in tb
    assert "gpuplan" not in tb.replace(str(FIXTURES), "") and "importlib" not in tb


def test_missing_user_module_says_where_it_looked(tmp_path: Path) -> None:
    w = Workload.from_dict(
        {
            "name": "x",
            "model": {"python": "nosuch.mod:build", "project_dir": str(tmp_path)},
            "inputs": {"batch_size": 1},
        }
    )
    with pytest.raises(UserCodeError, match=r"cannot import 'nosuch.mod': no module 'nosuch'"):
        trace(w)


def test_error_in_user_forward_is_a_user_code_error(tmp_path: Path) -> None:
    (tmp_path / "badfwd.py").write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.l = torch.nn.Linear(4, 4)\n"
        "    def forward(self, x):\n"
        "        return self.l(x.view(3, 5))\n"
        "def build():\n"
        "    return M(), lambda b: torch.randn(b, 4)\n"
    )
    w = Workload.from_dict(
        {
            "name": "x",
            "model": {"python": "badfwd:build", "project_dir": str(tmp_path)},
            "inputs": {"batch_size": 2},
        }
    )
    with pytest.raises(UserCodeError) as e:
        trace(w)
    assert "(badfwd.py:6)" in str(e.value)
    assert "return self.l(x.view(3, 5))" in e.value.user_traceback


def test_build_returning_only_a_plain_model_asks_for_make_inputs(tmp_path: Path) -> None:
    (tmp_path / "bare.py").write_text("import torch\ndef build():\n    return torch.nn.Linear(4, 4)\n")
    w = Workload.from_dict(
        {
            "name": "x",
            "model": {"python": "bare:build", "project_dir": str(tmp_path)},
            "inputs": {"batch_size": 2},
        }
    )
    with pytest.raises(UserCodeError, match=r"return \(model, make_inputs\)"):
        trace(w)
