"""``gpuplan.bounded``: YAML is counted while it is parsed, so a big file fails fast and small, and a
scalar Python cannot build is a line naming its place, not a traceback."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from gpuplan.bounded import MAX_YAML_NODES, decimal_number, load_yaml
from gpuplan.errors import InputError

#: Runs ``load_yaml`` on a file in a child limited to 512 MiB of address space: a loader that built
#: the document before counting it (4.9 GB for 15 MB of YAML) dies there instead of printing a line.
_CHILD = """\
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
from gpuplan.bounded import load_yaml, read_text, MAX_DOCUMENT_BYTES
from gpuplan.errors import InputError
try:
    load_yaml(read_text(sys.argv[1], what="workload file", max_bytes=MAX_DOCUMENT_BYTES), source="big.yaml")
except InputError as e:
    print(e)
"""


@pytest.mark.parametrize("line", ["- 1\n", "- {a: 1, b: [x, y]}\n"], ids=["a list", "nested"])
def test_a_15_mb_yaml_file_stops_at_the_value_limit_within_512_mib(tmp_path: Path, line: str) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(line * (15_000_000 // len(line)))
    assert path.stat().st_size > 14_000_000
    r = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert (
        r.stdout == f"big.yaml: more than {MAX_YAML_NODES:,} YAML values, the limit of one file; "
        "gpuplan's files hold fewer\n"
    ), r.stdout


def test_aliases_count_at_every_use_while_parsing() -> None:
    # 1,000 uses of a 200-value list: 200,000 values once expanded, from a 5 kB file.
    text = "a: &a [" + ", ".join(["1"] * 199) + "]\nb: [" + ", ".join(["*a"] * 1000) + "]\n"
    with pytest.raises(InputError) as e:
        load_yaml(text, source="f.yaml")
    assert "aliases expand to more than 100,000 values" in str(e.value)
    # Just under the limit is read (the anchored list once, then 499 uses: 1 + 200 + 1 + 499 × 200 + …).
    ok = "a: &a [" + ", ".join(["1"] * 199) + "]\nb: [" + ", ".join(["*a"] * 400) + "]\n"
    assert len(load_yaml(ok, source="f.yaml")["b"]) == 400


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a: 2023-02-30\n", "f.yaml:1:4: invalid YAML: day is out of range for month"),
        ("a: " + "1" * 5000 + "\n", "f.yaml:1:4: invalid YAML: Exceeds the limit (4300 digits)"),
        ("a: !!int 'x'\n", "f.yaml:1:4: invalid YAML: invalid literal for int()"),
        ("a: !!timestamp 2020-13-01\n", "f.yaml:1:4: invalid YAML: month must be in 1..12"),
        ("x: " + "[" * 3000 + "]" * 3000 + "\n", "nested more than 64 levels deep"),
        # the constructor's English had stood inside a Chinese line
        (
            "model: !!python/object/apply:os.system ['echo hi']\n",
            "f.yaml:1:8: the YAML tag 'python/object/apply:os.system' is not read",
        ),
    ],
)
def test_a_scalar_python_cannot_build_is_one_line_naming_its_place(text: str, says: str) -> None:
    with pytest.raises(InputError) as e:
        load_yaml(text, source="f.yaml")
    assert says in str(e.value) and "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize("loader", ["_CLoader", "_PyLoader"])
def test_both_parsers_stop_at_the_same_limits(loader: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import gpuplan.bounded as bounded

    monkeypatch.setattr(bounded, "_BoundedLoader", getattr(bounded, loader))
    monkeypatch.setattr(bounded, "MAX_YAML_NODES", 1000)  # PyYAML's own parser is slow: a smaller limit
    cases = {
        "- 1\n" * 1001: "more than 1,000 YAML values",
        "a: &a [" + ", ".join(["1"] * 19) + "]\nb: [" + ", ".join(["*a"] * 100) + "]\n": "aliases expand",
        "- " * 70 + "1\n": "nested more than 64 levels",
        "a: 2023-02-30\n": "f.yaml:1:4: invalid YAML: day is out of range",
        "a: \x00\n": "invalid YAML",
        "a: 1\na: 2\n": "f.yaml:2:1: 'a' is given twice",
    }
    for text, says in cases.items():
        with pytest.raises(InputError) as e:
            load_yaml(text, source="f.yaml")
        assert says in str(e.value), str(e.value)
    assert load_yaml("a: &a [1, 2]\nb: *a\n", source="f.yaml") == {"a": [1, 2], "b": [1, 2]}


def test_a_missing_file_names_the_nearest_file_beside_it(tmp_path: Path) -> None:
    from gpuplan.bounded import read_text

    (tmp_path / "resnet50.yaml").write_text("name: x\n")
    with pytest.raises(InputError) as e:
        read_text(tmp_path / "resnet50.yml", what="workload file", max_bytes=1000)
    assert str(e.value).endswith(f"no such file; did you mean {str(tmp_path / 'resnet50.yaml')!r}?")
    with pytest.raises(InputError) as far:
        read_text(tmp_path / "other.json", what="workload file", max_bytes=1000)
    assert "did you mean" not in str(far.value)


@pytest.mark.parametrize(
    ("text", "where", "key"),
    [
        ("name: a\ndata: {samples: 100000}\ndata: {samples: 1}\n", "job.yaml:3:1", "data"),
        ("inputs:\n  batch_size: 32\n  seq_len: 128\n  batch_size: 1\n", "job.yaml:4:3", "batch_size"),
        ('a: 1\n"a": 2\n', "job.yaml:2:1", "a"),  # quoted or not, the same key
    ],
)
def test_a_key_given_twice_is_refused_where_the_second_one_is(text: str, where: str, key: str) -> None:
    # PyYAML and libyaml keep the last value silently: a plan for 1 sample instead of 100,000.
    with pytest.raises(InputError) as e:
        load_yaml(text, source="job.yaml")
    assert (
        str(e.value)
        == f"{where}: {key!r} is given twice in one mapping (YAML would keep only the last); keep one"
    )


def test_keys_of_different_mappings_and_merged_anchors_are_not_duplicates() -> None:
    text = "a: {x: 1}\nb: {x: 2}\nbase: &b {y: 1}\nc:\n  <<: *b\n  z: 2\n1: one\n'1': text\n"
    assert load_yaml(text, source="ok.yaml") == {
        "a": {"x": 1},
        "b": {"x": 2},
        "base": {"y": 1},
        "c": {"y": 1, "z": 2},
        1: "one",
        "1": "text",
    }


def test_printable_escapes_what_would_break_a_line_and_keeps_the_rest() -> None:
    from gpuplan.bounded import printable

    assert printable("训练 A100 — ok") == "训练 A100 — ok"
    assert printable("a\nb\x1b[31mc\u2028d\u202ee") == "a\\nb\\x1b[31mc\\u2028d\\u202ee"


def test_a_json_whole_number_of_thousands_of_digits_is_refused_in_gpuplans_words() -> None:
    # Python's own refusal told the user to call sys.set_int_max_str_digits() and named no file.
    from gpuplan.bounded import load_json
    from gpuplan.errors import InputError

    with pytest.raises(InputError, match=r"plan\.json: number 9+… has 5,000 digits") as e:
        load_json('{"steps": ' + "9" * 5000 + "}", source="plan.json")
    assert "sys." not in str(e.value)
    assert load_json('{"a": -12, "b": 1e3}', source="x") == {"a": -12, "b": 1000.0}


@pytest.mark.parametrize("text", ["1_5", "１.5", "١٥", "0x10", "1e", "", ".", "1.5.2", "+", "½"])
def test_decimal_number_refuses_what_float_reads_beyond_ascii_decimals(text: str) -> None:
    with pytest.raises(ValueError, match="is not a number"):
        decimal_number(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("1", 1.0), ("-1.5e3", -1500.0), (".5", 0.5), ("5.", 5.0), (" 2\t", 2.0), ("+1E2", 100.0)],
)
def test_decimal_number_reads_ascii_decimals_as_float_does(text: str, value: float) -> None:
    assert decimal_number(text) == value


def test_decimal_number_leaves_nan_and_infinity_to_the_callers_own_refusal() -> None:
    assert math.isnan(decimal_number("nan")) and decimal_number("-Infinity") == -math.inf


def test_a_json_key_given_twice_in_one_object_is_refused_naming_it() -> None:
    from gpuplan.bounded import load_json

    # json.loads keeps the last and says nothing; load_yaml refuses the same mapping
    with pytest.raises(InputError, match=r"^plan.json: 'b' is given twice in one object"):
        load_json('{"a": [{"b": 1, "c": 2, "b": 3}]}', source="plan.json")
    assert load_json('{"a": {"b": 1}, "c": {"b": 2}}', source="x") == {"a": {"b": 1}, "c": {"b": 2}}


_DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: chat}\n---\napiVersion: v1\nkind: Service\n"
)


def test_a_kubernetes_manifest_of_several_documents_is_said_to_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It had been "invalid YAML: but found another document", the parser's English in any language."""
    from one_line import refused

    f = tmp_path / "deployment.yaml"
    f.write_text(_DEPLOYMENT)
    assert refused(["estimate", str(f)], capsys) == (
        f"error: {f}:4:1: this file holds several YAML documents (separated by ---) and is a Kubernetes "
        "manifest (apiVersion, kind), not a workload; a workload is one YAML document of gpuplan's own "
        "keys (name, task, model …)"
    )
    zh = refused(["--lang", "zh", "estimate", str(f)], capsys)
    assert "多个 YAML 文档" in zh and "Kubernetes" in zh and "found another" not in zh, zh


def test_a_kubernetes_manifest_of_one_document_is_said_to_be_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It had been "unknown key 'apiVersion'; did you mean 'precision'?"."""
    from one_line import refused

    f = tmp_path / "hpa.yaml"
    f.write_text("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: chat}\n")
    for command in ("estimate", "plan"):
        assert refused([command, str(f)], capsys) == (
            f"error: {f}: this file is a Kubernetes manifest (apiVersion, kind), not a workload; a "
            "workload is one YAML document of gpuplan's own keys (name, task, model …)"
        )
    zh = refused(["--lang", "zh", "estimate", str(f)], capsys)
    assert "Kubernetes" in zh and "precision" not in zh and "无法识别" not in zh, zh


@pytest.mark.parametrize(
    "text",
    [
        "resources:\n  accelerators: A100:1\nrun: python train.py\n",
        "resources: {accelerators: L4}\nsetup: pip install vllm\n",
        "service:\n  readiness_probe: /v1/models\n  replicas: 2\n",
    ],
)
def test_a_skypilot_task_file_is_said_to_be_one(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It had been "unknown key 'resources'; known keys: …" (or 'service'; did you mean 'serving')."""
    from one_line import refused

    f = tmp_path / "task.yaml"
    f.write_text(text)
    assert refused(["estimate", str(f)], capsys).startswith(
        f"error: {f}: this is a SkyPilot task file (resources, run), not a workload;"
    )
    assert "SkyPilot" in refused(["--lang", "zh", "plan", str(f)], capsys)


def test_a_misspelt_serving_key_is_no_skypilot_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "w.yaml"
    f.write_text("name: x\nservice: {}\n")
    from one_line import refused

    assert "did you mean 'serving'" in refused(["estimate", str(f)], capsys)


def test_several_yaml_documents_are_said_to_be_several() -> None:
    with pytest.raises(InputError) as e:
        load_yaml("name: a\n---\nname: b\n", source="w.yaml")
    assert str(e.value) == (
        "w.yaml:2:1: this file holds several YAML documents (separated by ---); gpuplan reads one per "
        "file (a workload is one document): put each in a file of its own"
    )
