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


def test_a_slip_in_the_named_module_is_one_line_with_the_module_beside_it(tmp_path: Path) -> None:
    # was: an empty "traceback from your code" block (importlib's frames only) over the error line
    (tmp_path / "mygpt").mkdir()
    (tmp_path / "mygpt" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "mygpt" / "model.py").write_text("def build():\n    pass\n", encoding="utf-8")
    w = Workload.from_dict(
        {
            "name": "x",
            "model": {"python": "mygpt.modle:build", "project_dir": str(tmp_path)},
            "inputs": {"batch_size": 1},
        }
    )
    with pytest.raises(UserCodeError) as e:
        trace(w)
    assert str(e.value) == (
        f"model.python: cannot import 'mygpt.modle': no module 'mygpt.modle' in {tmp_path} or the current "
        "directory; did you mean 'mygpt.model'?"
    )
    assert e.value.user_traceback == ""


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


def test_a_transformers_vit_built_in_user_code_traces(tmp_path: Path) -> None:
    # The failure: "vitmodel:build() failed (vitmodel.py:5): DataDependentOutputException:
    # aten._local_scalar_dense.default" (ViT's truncated-normal initialisation asked a fake weight
    # for a value), where the same model from an hf_config traced.
    pytest.importorskip("transformers")
    (tmp_path / "vitmodel.py").write_text(
        "from transformers import ViTConfig, ViTForImageClassification\n"
        "def build():\n"
        "    config = ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4,\n"
        "                       intermediate_size=128, image_size=32, patch_size=8, num_labels=10)\n"
        "    return ViTForImageClassification(config)\n",
        encoding="utf-8",
    )
    w = Workload.from_dict(
        {
            "name": "x",
            "task": "train",
            "model": {"python": "vitmodel:build", "project_dir": str(tmp_path)},
            "inputs": {"batch_size": 2, "image_size": 32},
        }
    )
    p = trace(w)
    # patch embedding 3·8·8·64+64, class token 64, positions 17·64; per layer 4·(64·64+64) + two
    # LayerNorms 2·128 + MLP 64·128+128 + 128·64+64; final LayerNorm 128; head 64·10+10
    layer = 4 * (64 * 64 + 64) + 2 * 128 + 64 * 128 + 128 + 128 * 64 + 64
    assert p.params == 3 * 8 * 8 * 64 + 64 + 64 + 17 * 64 + 2 * layer + 128 + 64 * 10 + 10
    # 16 patches + the class token = 17 tokens; multiply-adds per image: 2 layers × ((4·64² [QKV,
    # projection] + 2·64·128 [MLP])·17 + 2·17²·64 [scores, values]) + 16·64·(3·8·8) + 64·10
    macs = 2 * ((4 * 64**2 + 2 * 64 * 128) * 17 + 2 * 17**2 * 64) + 16 * 64 * 3 * 8 * 8 + 64 * 10
    assert p.forward_flops == 2 * macs * 2  # two FLOPs per multiply-add, batch 2
    assert p.shape.family == "vit" and p.shape.max_seq_len == 17


def test_the_users_module_is_imported_once_a_process_until_its_file_changes(tmp_path: Path) -> None:
    # One `gpuplan estimate` traced the workload and its tuned stack: the user's module, whose
    # import wrote a line to a log, wrote two (same process), as its code ran twice.
    import os

    log = tmp_path / "imported.log"
    model = tmp_path / "counted_model.py"
    model.write_text(
        f"with open({str(log)!r}, 'a') as f:\n"
        "    f.write('imported\\n')\n"
        "import torch\n"
        "def build():\n"
        "    return torch.nn.Linear(4, 4), lambda b: torch.randn(b, 4)\n"
    )

    def workload(batch: int) -> Workload:
        return Workload.from_dict(
            {
                "name": "x",
                "model": {"python": "counted_model:build", "project_dir": str(tmp_path)},
                "inputs": {"batch_size": batch},
            }
        )

    trace(workload(2))
    trace(workload(4))  # another trace of the same project in this process
    assert log.read_text().splitlines() == ["imported"]
    assert "counted_model" not in sys.modules  # still out of the way between uses
    # an edited file is imported afresh
    stat = model.stat()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    trace(workload(2))
    assert log.read_text().splitlines() == ["imported", "imported"]
