"""No code runs because a data file asks for it: a Hugging Face config's auto_map is refused before
transformers is imported and no [y/N] prompt can appear (also on a terminal); a services or usage
file that names a workload whose model is code imports it only with --allow-code."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import pytest

from gpuplan.confine import Folder
from gpuplan.errors import GpuplanError, InputError, WorkloadError
from gpuplan.workload import Workload
from gpuplan.workload.named import named_workload

#: The issue's config: a model type transformers knows for vision, an auto_map for the causal LM
#: class it then builds with from_config(), which prompted on stdin and imported modeling_evil on "y".
VIT_WITH_AUTO_MAP = {
    "model_type": "vit",
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 64,
    "image_size": 32,
    "patch_size": 16,
    "auto_map": {"AutoModelForCausalLM": "modeling_evil.Evil"},
}


def _evil_config(folder: Path, marker: Path, config: dict[str, object]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "modeling_evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    job = folder / "w.yaml"
    job.write_text("name: j\nmodel: {hf_config: .}\ninputs: {batch_size: 1, image_size: 32}\n")
    return job


def _run_on_a_terminal(args: list[str], answer: bytes, timeout: float) -> tuple[int, str, float]:
    """Run ``args`` with a pseudo-terminal as stdin, stdout and stderr, ``answer`` typed ahead."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    start = time.monotonic()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
    os.close(slave)
    os.write(master, answer)
    chunks = []
    try:
        while time.monotonic() - start < timeout:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=max(1.0, timeout - (time.monotonic() - start)))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, b"".join(chunks).decode("utf-8", "replace"), time.monotonic() - start


def test_an_auto_map_is_refused_on_a_terminal_with_no_prompt(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    job = _evil_config(tmp_path / "cfg", marker, VIT_WITH_AUTO_MAP)
    args = [
        sys.executable,
        "-m",
        "gpuplan",
        "--db",
        str(tmp_path / "c.sqlite"),
        "estimate",
        str(job),
        "-g",
        "T4",
    ]
    code, output, seconds = _run_on_a_terminal(args, b"y\n", timeout=60)
    lines = [line for line in output.replace("\r", "").split("\n") if line.strip() and line.strip() != "y"]
    assert code == 1, output
    assert len(lines) == 1 and "has an auto_map (AutoModelForCausalLM), which names Python code" in lines[0]
    assert "[y/N]" not in output and "Traceback" not in output
    assert not marker.exists()
    assert seconds < 30  # no 15-second wait for an answer


def test_the_refusal_comes_before_transformers_is_imported(tmp_path: Path) -> None:
    job = _evil_config(tmp_path, tmp_path / "PWNED", VIT_WITH_AUTO_MAP)
    code = (
        "import sys\nfrom gpuplan.workload import Workload\n"
        "try:\n    Workload.from_yaml(sys.argv[1])\nexcept Exception as e:\n    print(type(e).__name__)\n"
        "print(sorted(m for m in ('transformers', 'torch') if m in sys.modules))\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(job)], capture_output=True, text=True, timeout=60)
    assert r.stdout.split("\n")[:2] == ["WorkloadError", "[]"], r.stdout + r.stderr


@pytest.mark.parametrize(
    "where",
    [
        {"auto_map": {"AutoConfig": "configuration_evil.C"}},
        {"text_config": {"auto_map": ["x--modeling_evil.Evil"]}},  # nested, and Hub-style
        {"auto_map": "modeling_evil.Evil"},
    ],
)
def test_an_auto_map_anywhere_is_refused_when_the_workload_is_read(tmp_path: Path, where: dict) -> None:
    config = {"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 8, "vocab_size": 16, **where}
    job = _evil_config(tmp_path, tmp_path / "PWNED", config)
    job.write_text("name: j\nmodel: {hf_config: config.json}\ninputs: {batch_size: 1, seq_len: 8}\n")
    with pytest.raises(WorkloadError, match="has an auto_map") as e:
        Workload.from_yaml(job)
    assert "\n" not in str(e.value)


def test_transformers_is_never_left_to_ask(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Past the auto_map check (a config object built some other way), every call into transformers
    says trust_remote_code=False, and transformers then neither asks on stdin nor runs the code."""
    from gpuplan.workload.hf import build_model

    calls: list[tuple[str, dict[str, object]]] = []

    def auto(name: str, fails: bool = False) -> types.SimpleNamespace:
        def from_config(config: object, **kwargs: object) -> str:
            calls.append((name, kwargs))
            if fails:
                raise ValueError("unrecognized configuration class")
            return name

        return types.SimpleNamespace(from_config=from_config)

    fake = types.SimpleNamespace(
        PreTrainedModel=type("PreTrainedModel", (), {}),
        AutoModelForSeq2SeqLM=auto("seq2seq"),
        AutoModelForCausalLM=auto("causal", fails=True),
        AutoModel=auto("base"),
    )
    assert build_model(fake, types.SimpleNamespace(is_encoder_decoder=True)) == "seq2seq"
    assert build_model(fake, types.SimpleNamespace()) == "base"  # causal refused, then the base model
    assert calls == [(n, {"trust_remote_code": False}) for n in ("seq2seq", "causal", "base")]
    # What transformers does with that answer, pinned: it refuses without input() and runs nothing.
    dynamic = pytest.importorskip("transformers.dynamic_module_utils")
    marker = tmp_path / "PWNED"
    (tmp_path / "modeling_evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt="": asked.append(prompt) or "y")
    with pytest.raises(ValueError, match="trust_remote_code=True"):
        dynamic.resolve_trust_remote_code(False, str(tmp_path), has_local_code=False, has_remote_code=True)
    assert asked == [] and not marker.exists()


def test_architectures_name_only_model_classes() -> None:
    """A config's architectures cannot make gpuplan call another function transformers exports."""
    called: list[object] = []
    fake = types.SimpleNamespace(
        PreTrainedModel=type("PreTrainedModel", (), {}),
        pipeline=lambda *a, **k: called.append(a),
        AutoModelForCausalLM=types.SimpleNamespace(from_config=lambda c, **k: ("causal", k)),
    )
    from gpuplan.workload.hf import build_model

    config = types.SimpleNamespace(architectures=["pipeline", "os.system", "__class__"])
    assert build_model(fake, config) == ("causal", {"trust_remote_code": False})
    assert called == []


# ---- files that name workloads: services (simulate share) and usage (tco) ---------------------------


def _code_workload(folder: Path, marker: Path) -> None:
    """A workload whose model is a package that, imported, leaves a marker file."""
    (folder / "evilpkg").mkdir(parents=True)
    (folder / "evilpkg" / "__init__.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        "def build():\n    raise RuntimeError('x')\n"
    )
    (folder / "w.yaml").write_text(
        "name: s\ntask: infer\nmodel: {python: 'evilpkg:build'}\ninputs: {batch_size: 1, seq_len: 16}\n"
        "serving: {requests_per_s: 1, prompt_tokens: 16, output_tokens: 16}\n"
    )


def test_a_named_workload_with_code_needs_allow_code(tmp_path: Path) -> None:
    _code_workload(tmp_path, tmp_path / "PWNED")
    with pytest.raises(InputError) as e:
        named_workload(
            "w.yaml", base=tmp_path, folder=Folder.of(tmp_path / "svc.yaml"), field="x", allow_code=False
        )
    assert str(e.value) == (
        "x 'w.yaml' names a workload whose model is code (evilpkg:build), which tracing would import and "
        "run: pass --allow-code if you trust that code"
    )
    path, w = named_workload(
        "w.yaml", base=tmp_path, folder=Folder.of(tmp_path / "s.yaml"), field="x", allow_code=True
    )
    assert path == (tmp_path / "w.yaml").resolve() and w.model.python == "evilpkg:build"
    assert not (tmp_path / "PWNED").exists()  # reading is not importing


def _cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db: Path, *args: str
) -> tuple[int, str]:
    from gpuplan.cli import main

    monkeypatch.setattr(sys, "argv", ["gpuplan", "--db", str(db), *args])
    with pytest.raises(SystemExit) as e:
        main()
    return (e.value.code if isinstance(e.value.code, int) else 1), capsys.readouterr().err


@pytest.fixture(scope="module")
def db(seeded_copy: Callable[[str], Path]) -> Path:
    return seeded_copy("no_code")


@pytest.mark.parametrize("command", ["share", "tco"])
def test_services_and_usage_files_import_no_code_without_the_flag(
    tmp_path: Path,
    db: Path,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    marker = tmp_path / "PWNED"
    _code_workload(tmp_path, marker)
    if command == "share":
        (tmp_path / "f.yaml").write_text(
            "gpu: L4\nservices:\n  - {name: a, requests_per_s: 1, workload: w.yaml}\n"
        )
        args = ["simulate", "share", str(tmp_path / "f.yaml")]
        field = "services[0].workload"
    else:
        (tmp_path / "f.yaml").write_text(
            "horizon_months: 3\ndemands:\n  - {name: a, workload: w.yaml, runs_per_month: 1}\n"
        )
        args = ["tco", str(tmp_path / "f.yaml")]
        field = "demands[0].workload"
    code, err = _cli(monkeypatch, capsys, db, *args)
    assert code == 1 and not marker.exists(), err
    assert err.startswith(f"error: {field} 'w.yaml' names a workload whose model is code")
    assert "--allow-code" in err and err.count("\n") == 1
    if command == "share":
        # With the flag, the user's choice: the code is imported (its error is the user's to fix).
        code, err = _cli(monkeypatch, capsys, db, *args, "--allow-code")
        assert code == 1 and marker.exists() and "evilpkg:build() failed" in err


def test_a_usage_files_base_dir_is_a_hint_inside_its_folder(tmp_path: Path) -> None:
    from gpuplan.commit import load_usage

    (tmp_path / "elsewhere").mkdir()
    usage = tmp_path / "u" / "usage.yaml"
    usage.parent.mkdir()
    usage.write_text(
        f"horizon_months: 3\nbase_dir: {tmp_path / 'elsewhere'}\n"
        "demands:\n  - {name: a, workload: w.yaml, runs_per_month: 1}\n"
    )
    with pytest.raises(GpuplanError, match=r"^base_dir '.*elsewhere' is .*, outside .*/u \(the folder of"):
        load_usage(usage)
    assert load_usage(usage, project=tmp_path).base_dir == str((tmp_path / "elsewhere").resolve())
