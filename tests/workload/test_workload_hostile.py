"""Hostile workload files: each is one WorkloadError line, fast, with nothing read past its bounds and
no code run — and property-based fuzzing that every failure of the loader is gpuplan's own line."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuplan.errors import GpuplanError, WorkloadError
from gpuplan.workload import Workload

GOOD = "name: j\nmodel: {preset: gpt2}\ninputs: {batch_size: 2, seq_len: 64}\n"

#: The classic "billion laughs": 387 bytes that a naive loader expands to 10^9 list items.
BOMB = textwrap.dedent(
    """\
    a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
    b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
    d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
    f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
    g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
    h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
    i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
    """
)


def _one_line(path: Path | str) -> str:
    with pytest.raises(WorkloadError) as e:
        Workload.from_yaml(path)
    message = str(e.value)
    assert "\n" not in message and len(message) < 500, message
    return message


def test_the_billion_laughs_fails_at_once_within_a_small_memory_limit(tmp_path: Path) -> None:
    assert len(BOMB.encode()) < 400
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    # In a child limited to 1 GiB of address space: a loader that expanded the aliases (or a pydantic
    # pass over the expansion) would need > 3 GB and die, not print one line.
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from gpuplan.errors import WorkloadError\n"
        "from gpuplan.workload import Workload\n"
        "try:\n    Workload.from_yaml(sys.argv[1])\n"
        "except WorkloadError as e:\n    print(e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "aliases expand to more than" in r.stdout and r.stdout.count("\n") == 1


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("constraints: {deadline: %s}", "1" + "0" * 400, "at most"),
        ("constraints: {deadline: %s}", ".inf", "finite"),
        ("constraints: {deadline: '%s'}", "inf", "duration"),
        ("data: {samples: %s}", "1" + "0" * 400, "≤"),
        # a count as people write one (1.28M, 1e6): past the bound, said so with the text as given
        ("data: {samples: %s, epochs: 1}", "1e999", "≤"),
        ("data: {samples: %s, epochs: 1}", "1e999999999", "≤"),
        ("data: {tokens: %s, epochs: 1}", "9" * 5000 + "k", "≤"),
        ("data: {samples: 10, epochs: %s}", ".inf", "finite"),
        ("data: {samples: 10, epochs: %s}", ".nan", "finite"),
        ("constraints: {budget_usd: %s}", ".inf", "finite"),
        ("constraints: {min_gpu_memory_gib: %s}", ".nan", "finite"),
        ("inputs: {batch_size: %s, seq_len: 8}", "2.5", "integer"),
        ("gradient_accumulation: %s", "1" + "0" * 30, "≤"),
    ],
)
def test_numbers_are_finite_and_in_range_at_the_schema(
    tmp_path: Path, field: str, value: str, says: str
) -> None:
    path = tmp_path / "w.yaml"
    inputs = "" if field.startswith("inputs") else "inputs: {batch_size: 2, seq_len: 64}\n"
    head = GOOD.replace("inputs: {batch_size: 2, seq_len: 64}\n", "")
    path.write_text(head + (field % value) + "\n" + inputs)
    assert says in _one_line(path)


def test_deep_nesting_is_refused_while_parsing(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(GOOD + "serving: " + "[" * 3000 + "]" * 3000 + "\n")
    assert "nested more than" in _one_line(path)
    path.write_text(GOOD + "x: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n")
    assert "nested more than" in _one_line(path)


def test_paths_with_nul_or_thousands_of_segments_are_one_line(tmp_path: Path) -> None:
    assert "NUL" in _one_line(str(tmp_path / "a\x00b.yaml"))
    _one_line("a/" * 3000 + "w.yaml")


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    assert "not a regular file" in _one_line("/dev/zero")
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    assert "not a regular file" in _one_line(fifo)  # opened non-blocking: no writer, no hang
    assert "folder" in _one_line(tmp_path)


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_hf_config_reads_regular_files_only(tmp_path: Path, target: str) -> None:
    if target == "fifo":
        os.mkfifo(tmp_path / "config.json")
        target = str(tmp_path / "config.json")
    path = tmp_path / "w.yaml"
    path.write_text(f"name: j\nmodel: {{hf_config: {target}}}\ninputs: {{batch_size: 1, seq_len: 8}}\n")
    if target == "/dev/zero":
        assert "outside" in _one_line(path)  # not in the workload's folder
        with pytest.raises(WorkloadError, match="not a regular file"):
            Workload.from_yaml(path, project="/")  # the user named a folder that holds it
    else:
        assert "not a regular file" in _one_line(path)


def test_a_huge_hf_config_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "config.json"
    with big.open("wb") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: 64 MiB on paper, nothing on disk
    path = tmp_path / "w.yaml"
    path.write_text(f"name: j\nmodel: {{hf_config: {big}}}\ninputs: {{batch_size: 1, seq_len: 8}}\n")
    assert "more than the" in _one_line(path)


def test_remote_code_in_an_hf_config_is_never_run(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from gpuplan.workload.hf import hf_bundle

    marker = tmp_path / "PWNED"
    (tmp_path / "config.json").write_text(
        '{"model_type": "evil", "auto_map": {"AutoConfig": "configuration_evil.EvilConfig"}, '
        '"hidden_size": 8, "max_position_embeddings": 64}'
    )
    (tmp_path / "configuration_evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    doc = {"name": "j", "model": {"hf_config": str(tmp_path)}, "inputs": {"batch_size": 1, "seq_len": 8}}
    # Refused when the workload is read, and again if a Workload is built some other way.
    with pytest.raises(GpuplanError, match="has an auto_map \\(AutoConfig\\), which names Python code"):
        Workload.from_dict(doc)
    preset = Workload.from_dict({**doc, "model": {"preset": "gpt2"}})
    model = preset.model.model_copy(update={"preset": None, "hf_config": str(tmp_path)})
    workload = preset.model_copy(update={"model": model})  # not validated: as a caller could build it
    with pytest.raises(GpuplanError) as e:
        hf_bundle(workload)
    assert "\n" not in str(e.value) and "auto_map" in str(e.value)
    assert not marker.exists()


# ---- fuzzing: whatever the file holds, the loader answers with a Workload or one line of its own --

_KEYS = ["name", "task", "model", "inputs", "precision", "optimizer", "data", "serving", "constraints",
         "parallelism", "gradient_accumulation", "preset", "batch_size", "seq_len", "samples", "epochs",
         "deadline", "hf_config", "python", "image_size", "lora", "rank", "zz"]  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["gpt2", "resnet50", "12h", "amp-bf16", "train", "infer", "pkg.mod:build", "", "\x00"]),
    st.text(max_size=20),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5)
    ),
    max_leaves=25,
)
_DOCS = st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=8)


def _assert_own_one_line(path: Path) -> None:
    try:
        Workload.from_yaml(path)
    except GpuplanError as e:
        assert "\n" not in str(e), str(e)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_DOCS)
def test_fuzzed_workload_documents_load_or_fail_in_one_own_line(
    tmp_path: Path, doc: dict[str, object]
) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    _assert_own_one_line(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(alphabet=st.sampled_from(list("ab:{}[]-&*!|>'\"#\n \t,0129.%@`?\u2028\x00")), max_size=120)
)
def test_fuzzed_workload_text_loads_or_fails_in_one_own_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(GOOD + text, encoding="utf-8")
    _assert_own_one_line(path)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n"])
def test_a_file_with_no_workload_says_so(tmp_path: Path, text: str) -> None:
    # It said "expected a mapping of workload fields (got NoneType)".
    path = tmp_path / "w.yaml"
    path.write_text(text, encoding="utf-8")
    line = _one_line(path)
    assert line.endswith("holds no workload (empty or comments only); write name, task, model, inputs"), line
    assert "NoneType" not in line
