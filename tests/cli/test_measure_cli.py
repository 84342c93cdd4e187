"""``gpuplan measure`` as a user runs it: a real CPU recording replayed into a catalog (``--from``),
estimates that say what they did with it, and one line for every wrong input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from gpuplan.cli import app

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "machine" / "fixtures" / "measure"
WORKLOAD = FIXTURES / "gpt2-lora.yaml"
RECORDING = FIXTURES / "gpt2-lora.cpu.json"
TINY = ROOT / "tests" / "deploy" / "fixtures" / "userproj" / "job.yaml"
runner = CliRunner()


@pytest.fixture
def db(fresh_catalog: Path) -> str:
    """This test's own copy of the seeded catalog (seeding one is a second of CPU a test)."""
    return str(fresh_catalog)


def test_a_recording_replays_into_the_catalog_and_the_estimate_says_what_it_did(db: str) -> None:
    stored = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(RECORDING), "--json"])
    assert stored.exit_code == 0, stored.output
    doc = json.loads(stored.stdout)
    assert doc["stored"] is True and doc["device"]["kind"] == "cpu"
    table = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(RECORDING), "--no-store"])
    assert table.exit_code == 0 and "CPU recording" in table.stdout
    assert "saved" not in table.stderr  # --no-store
    again = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(RECORDING)])
    # Storing a CPU recording never claims that GPU estimates now anchor on it.
    assert again.exit_code == 0 and "as a CPU recording" in again.stderr and "now anchor" not in again.stderr
    est = runner.invoke(app, ["--db", db, "estimate", str(WORKLOAD), "--gpu", "A100-SXM4-80GB", "--json"])
    assert est.exit_code == 0, est.output
    row = json.loads(est.stdout)["estimates"][0]
    # A CPU recording never anchors a GPU estimate, and the estimate says so.
    assert row["anchored"] is None
    assert any("CPU recording" in n for n in row["notes"])
    # The table says it too (a note under it), so the recording is not silently ignored.
    shown = runner.invoke(app, ["--db", db, "estimate", str(WORKLOAD), "--gpu", "A100-SXM4-80GB"])
    assert shown.exit_code == 0 and "⚓" not in shown.stdout
    assert "note: your measured step on" in shown.stderr and "CPU recording" in shown.stderr


def test_a_recording_of_another_workload_is_refused_in_one_line(db: str) -> None:
    other = ROOT / "examples" / "bert-large-squad.yaml"
    result = runner.invoke(app, ["--db", db, "measure", str(other), "--from", str(RECORDING)])
    assert result.exit_code == 1
    assert "is a measurement of 'gpt2-lora-tiny'" in str(result.exception)


def test_a_recording_of_an_older_schema_and_torch_is_stored_and_anchors(db: str, tmp_path: Path) -> None:
    import hashlib

    from gpuplan.profile.key import key_fields
    from gpuplan.workload import load_workload

    # The real CPU recording relabelled as an A100 step under Profile schema 4 and torch 2.12: its
    # trace key is none this machine computes for the workload now (schema 5, torch 2.13).
    fields = {**key_fields(load_workload(WORKLOAD)), "profile_schema_version": 4, "torch": "2.12.0+cu126"}
    doc = json.loads(RECORDING.read_text(encoding="utf-8"))
    doc["workload"]["profile_key"] = hashlib.sha256(
        json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()
    doc["device"].update(kind="cuda", gpu_id="A100-SXM4-80GB", name="NVIDIA A100-SXM4-80GB")
    doc["device"]["torch_version"] = "2.12.0+cu126"
    doc["notes"] = []
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc), encoding="utf-8")
    stored = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(old)])
    assert stored.exit_code == 0, stored.output
    est = runner.invoke(app, ["--db", db, "estimate", str(WORKLOAD), "--gpu", "A100-SXM4-80GB", "--json"])
    assert est.exit_code == 0, est.output
    row = json.loads(est.stdout)["estimates"][0]
    assert row["anchored"]["measured_on"] == "A100-SXM4-80GB"
    # It anchors, and says that it ran under another torch than this machine's.
    assert any("measured under torch 2.12.0+cu126" in n for n in row["notes"])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "JSON"),
        ('{"kind": "gpuplan-measurement"}', "not a gpuplan measurement"),
        ("[1, 2]", "not a gpuplan measurement"),
    ],
)
def test_a_file_that_is_not_a_recording_is_one_line(db: str, tmp_path: Path, text: str, says: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(bad)])
    assert result.exit_code == 1 and says in str(result.exception)


def test_a_tampered_recording_is_refused(db: str, tmp_path: Path) -> None:
    doc = json.loads(RECORDING.read_text(encoding="utf-8"))
    doc["step_time"]["median_s"] = -1.0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(bad)])
    assert result.exit_code == 1 and "step_time.median_s" in str(result.exception)


def _tampered(tmp_path: Path, change: Any) -> Path:
    doc = json.loads(RECORDING.read_text(encoding="utf-8"))
    change(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    return bad


def _set(section: str, **fields: object) -> Any:
    return lambda doc: doc[section].update(fields)


def _step(value: float) -> Any:
    return _set("step_time", low_s=value, median_s=value, high_s=value, samples_s=[value])


@pytest.mark.parametrize(
    ("change", "says"),
    [
        # estimate and plan anchored on these: a step of 5e-324 s made every estimate instant
        (_step(5e-324), "step_time.low_s 5e-324 s is shorter than any real step (at least 1e-06 s)"),
        (_set("step_time", median_s=40.0), "step times out of order"),
        (_set("step_time", samples_s=[21.0, 90.0]), "step_time.samples_s holds 90.0 s, outside its fastest"),
        # 7.9 s of kernels in a step of at most 1 ms on an H100 (a CPU recording's operator time is
        # not held to its step: the profiler's overhead per operator is of a small operator's size)
        (
            lambda doc: (
                _step(0.001)(doc),
                doc["device"].update(kind="cuda", name="NVIDIA H100 80GB HBM3", gpu_id="H100-SXM"),
                doc["kernel_time_s"].update(gemm=7.9, attention=0, memory=0, other=0, busy_s=7.9),
            ),
            "kernel_time_s (7.9 s per step) is more than the slowest step (0.001 s)",
        ),
        (_set("run", measured_at="2999-01-01"), "run.measured_at '2999-01-01' is after today"),
        (_set("run", measured_at="yesterday"), "run.measured_at 'yesterday' is not an ISO date and time"),
    ],
)
def test_a_recording_no_real_step_could_make_is_refused_naming_the_field(
    db: str, tmp_path: Path, change: Any, says: str
) -> None:
    bad = _tampered(tmp_path, change)
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(bad)])
    assert result.exit_code == 1 and says in str(result.exception), result.output
    assert "\n" not in str(result.exception)
    est = runner.invoke(app, ["--db", db, "estimate", str(WORKLOAD), "--gpu", "A100-SXM4-80GB", "--json"])
    assert est.exit_code == 0 and not any(
        "measured step" in n for n in json.loads(est.stdout)["estimates"][0]["notes"]
    )


def test_a_recordings_text_is_shown_escaped_and_cut(db: str, tmp_path: Path) -> None:
    # a 1 MB note was printed whole, and ESC sequences in notes and memory.how reached the terminal
    def change(doc: dict[str, Any]) -> None:
        doc["notes"] = ["\x1b]0;owned\x07\x1b[31mred", "x" * 1_000_000]
        doc["memory"]["how"] = ["read \x1b[2J by hand"]

    bad = _tampered(tmp_path, change)
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(bad), "--no-store"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\x1b]0;owned\\x07\\x1b[31mred" in result.stdout and "read \\x1b[2J by hand" in result.stdout
    joined = "".join(result.stdout.split())  # the console wraps the long note
    assert len(result.stdout) < 10_000 and "x" * 300 + "…" in joined and "x" * 301 not in joined


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_no_gpu_is_one_line_and_exit_1(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD)])
    assert result.exit_code == 1
    assert "no CUDA GPU here" in str(result.exception) and "--device cpu" in str(result.exception)


def test_a_recording_on_an_unknown_gpu_is_one_line_naming_the_file(db: str, tmp_path: Path) -> None:
    doc = json.loads(RECORDING.read_text(encoding="utf-8"))
    doc["device"].update(kind="cuda", gpu_id="Z9000")
    bad = tmp_path / "z.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(bad)])
    assert result.exit_code == 1
    assert "z.json was recorded on Z9000" in str(result.exception) and "\n" not in str(result.exception)


def test_a_malformed_command_line_is_exit_2(db: str) -> None:
    result = runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--steps", "0"])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param(
            "cuda",
            marks=[
                pytest.mark.gpu,
                pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
            ],
        ),
    ],
)
def test_measure_out_then_from_elsewhere_anchors_the_estimate(db: str, tmp_path: Path, device: str) -> None:
    """The round trip a user makes: measure on the rented machine (--out), store it at home (--from)."""
    out = tmp_path / "rec.json"
    sizes = ["--steps", "2", "--warmup", "1", "--profiled", "1"]
    on = ["--device", "cpu"] if device == "cpu" else []
    measured = runner.invoke(
        app, ["--db", db, "measure", str(TINY), *sizes, *on, "--out", str(out), "--no-store", "--json"]
    )
    assert measured.exit_code == 0, measured.output
    doc = json.loads(measured.stdout)
    assert doc["device"]["kind"] == device and doc["stored"] is False
    assert json.loads(out.read_text(encoding="utf-8"))["step_time"] == doc["step_time"]
    home = runner.invoke(app, ["--db", db, "measure", str(TINY), "--from", str(out)])
    assert home.exit_code == 0, home.output
    gpu = doc["device"]["gpu_id"] or "A100-SXM4-80GB"
    other = "A100-SXM4-80GB" if gpu == "H100-SXM" else "H100-SXM"
    est = runner.invoke(app, ["--db", db, "estimate", str(TINY), "--gpu", gpu, "--gpu", other, "--json"])
    assert est.exit_code == 0, est.output
    rows = json.loads(est.stdout)["estimates"]
    if device == "cpu" or doc["device"]["gpu_id"] is None:
        assert all(r["anchored"] is None for r in rows)
        return
    own = rows[0]
    assert own["anchored"]["measured_on"] == gpu and own["anchored"]["transferred"] is False
    assert own["step_time_s"] == pytest.approx(doc["step_time"]["median_s"], rel=0.05)
    assert rows[1]["anchored"]["measured_on"] == gpu and rows[1]["anchored"]["transferred"] is True


def test_next_to_an_anchored_estimate_the_stack_levels_are_the_models_and_say_so(
    db: str, tmp_path: Path
) -> None:
    # The real CPU recording relabelled as an A100 step: the estimate anchors on it.
    doc = json.loads(RECORDING.read_text(encoding="utf-8"))
    doc["device"].update(kind="cuda", gpu_id="A100-SXM4-80GB", name="NVIDIA A100-SXM4-80GB")
    doc["notes"] = []
    rec = tmp_path / "a100.json"
    rec.write_text(json.dumps(doc), encoding="utf-8")
    assert runner.invoke(app, ["--db", db, "measure", str(WORKLOAD), "--from", str(rec)]).exit_code == 0
    est = runner.invoke(app, ["--db", db, "estimate", str(WORKLOAD), "--gpu", "A100-SXM4-80GB", "--json"])
    assert est.exit_code == 0, est.output
    (row,) = json.loads(est.stdout)["estimates"]
    assert row["anchored"] is not None and row["step_time_s"] == pytest.approx(doc["step_time"]["median_s"])
    stock, tuned = row["stack_levels"]
    # The levels stay the model's (like with like), each with its memory verdict ...
    assert stock["step_time_s"] == pytest.approx(row["anchored"]["model_compute_s"], rel=0.05)
    assert stock["memory_verdict"] == row["memory_verdict"] == "fits" and tuned["memory_verdict"] == "fits"
    # ... and the table does not call the model's stock figure "yours" beside the anchored one.
    table = runner.invoke(
        app, ["--db", db, "estimate", str(WORKLOAD), "--gpu", "A100-SXM4-80GB"], env={"COLUMNS": "140"}
    )
    assert table.exit_code == 0, table.output
    words = " ".join(table.stdout.split())
    assert "stock (yours)" not in words and "yours ⚓" in words
    assert "your measured step anchors only your own stack" in words


def test_a_recording_made_in_another_folder_of_the_same_project_is_taken(db: str, tmp_path: Path) -> None:
    """A rented machine has the project at another path: its recording is of the same workload as
    long as the model's code is the same; edited code is refused."""
    import shutil

    there, home = tmp_path / "rented" / "proj", tmp_path / "home" / "proj"
    shutil.copytree(TINY.parent, there)
    shutil.copytree(TINY.parent, home)
    out = tmp_path / "rec.json"
    sizes = ["--steps", "1", "--warmup", "0", "--profiled", "1", "--device", "cpu"]
    measured = runner.invoke(
        app, ["--db", db, "measure", str(there / TINY.name), *sizes, "--out", str(out), "--no-store"]
    )
    assert measured.exit_code == 0, measured.output
    stored = runner.invoke(app, ["--db", db, "measure", str(home / TINY.name), "--from", str(out)])
    assert stored.exit_code == 0, stored.output
    model = home / "tinyuser" / "model.py"
    model.write_text(model.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    refused = runner.invoke(app, ["--db", db, "measure", str(home / TINY.name), "--from", str(out)])
    assert refused.exit_code == 1 and "not of this workload" in str(refused.exception)


def test_a_recording_under_a_cuda_build_of_torch_is_of_its_workload(db: str, tmp_path: Path) -> None:
    """A CUDA wheel's torch.__version__ has a local part (2.11.0+cu130) that the installed
    package's version (what the trace key names) lacks: such recordings, made before they carried
    a recording_key, were refused at home as "not of this workload"."""
    from gpuplan.profile.key import _TRACE_ONLY_FIELDS, _digest, key_fields
    from gpuplan.workload import load_workload

    fields = {k: v for k, v in key_fields(load_workload(WORKLOAD)).items() if k not in _TRACE_ONLY_FIELDS}
    key = _digest({**fields, "profile_schema_version": 1, "torch": "2.11.0"})

    def change(doc: dict[str, Any]) -> None:
        doc["workload"]["profile_key"] = key
        doc["workload"].pop("recording_key", None)
        doc["device"]["torch_version"] = "2.11.0+cu130"

    result = runner.invoke(
        app, ["--db", db, "measure", str(WORKLOAD), "--from", str(_tampered(tmp_path, change))]
    )
    assert result.exit_code == 0, result.output


def test_a_recording_from_a_real_h200_anchors_the_estimate_at_home(db: str) -> None:
    """The round trip on a file a real GPU wrote: an H200 under a CUDA build of torch (2.11.0+cu130),
    stored at home under another torch, anchors the H200's estimate on its own step and moves it
    to an A100."""
    example = ROOT / "examples" / "resnet50-imagenet.yaml"
    recording = ROOT / "tests" / "machine" / "fixtures" / "measure" / "resnet50-imagenet.h200.json"
    doc = json.loads(recording.read_text(encoding="utf-8"))
    stored = runner.invoke(app, ["--db", db, "measure", str(example), "--from", str(recording)])
    assert stored.exit_code == 0, stored.output
    est = runner.invoke(
        app, ["--db", db, "estimate", str(example), "--gpu", "H200-SXM", "--gpu", "A100-SXM4-80GB", "--json"]
    )
    assert est.exit_code == 0, est.output
    own, other = json.loads(est.stdout)["estimates"]
    assert own["anchored"]["measured_on"] == "H200-SXM" and own["anchored"]["transferred"] is False
    assert own["step_time_s"] == pytest.approx(doc["step_time"]["median_s"], rel=0.05)
    assert other["anchored"]["transferred"] is True and other["step_time_s"] > own["step_time_s"]


H200_WORKLOAD = ROOT / "examples" / "resnet50-imagenet.yaml"
H200_RECORDING = FIXTURES / "resnet50-imagenet.h200.json"


def _h200(tmp_path: Path, change: Any) -> Path:
    doc = json.loads(H200_RECORDING.read_text(encoding="utf-8"))
    change(doc)
    bad = tmp_path / "h200.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    return bad


def _field(path: str, value: object) -> Any:
    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for p in parents:
            doc = doc[p]
        doc[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "says"),
    [
        # a median and a fastest step edited (10 ms beside samples of 87 ms): every anchored GPU
        # 9x too fast
        (
            lambda d: _field("step_time.median_s", 0.010)(d) or _field("step_time.low_s", 0.010)(d),
            "is not the median of its samples_s",
        ),
        # a B200 id on an H200's name: every GPU moved from the wrong card
        (_field("device.gpu_id", "B200"), "is not a GPU device.name 'NVIDIA H200' can be"),
        # amp-fp16 keeps no issue time (GradScaler waits mid-step); none is longer than a step
        (_field("step_time.issue_s", 0.05), "given for an amp-fp16 step"),
        (_field("step_time.issue_s", 10.0), "is longer than the slowest step"),
        # its key matched, its own description did not
        (_field("workload.batch_size", 64), "describes a train step in amp-fp16 at batch 64 per GPU"),
        (_field("workload.precision", "fp32"), "describes a train step in fp32 at batch 256 per GPU"),
    ],
)
def test_a_recording_that_contradicts_itself_or_the_workload_is_refused(
    db: str, tmp_path: Path, change: Any, says: str
) -> None:
    result = runner.invoke(
        app, ["--db", db, "measure", str(H200_WORKLOAD), "--from", str(_h200(tmp_path, change))]
    )
    assert result.exit_code == 1 and says in str(result.exception), result.output
    genuine = runner.invoke(app, ["--db", db, "measure", str(H200_WORKLOAD), "--from", str(H200_RECORDING)])
    assert genuine.exit_code == 0, genuine.output


def test_a_moved_range_is_called_narrower_only_where_a_reader_can_see_it(db: str) -> None:
    # was: "with a narrower range" for ×/÷ 1.188 beside the model's 1.190 on every moved GPU
    stored = runner.invoke(app, ["--db", db, "measure", str(H200_WORKLOAD), "--from", str(H200_RECORDING)])
    assert stored.exit_code == 0, stored.output
    wide = {"COLUMNS": "200"}
    moved = runner.invoke(app, ["--db", db, "estimate", str(H200_WORKLOAD), "-g", "A100-SXM4-80GB"], env=wide)
    assert moved.exit_code == 0 and "narrower range" not in moved.stdout, moved.stdout
    measured = runner.invoke(app, ["--db", db, "estimate", str(H200_WORKLOAD), "-g", "H200-SXM"], env=wide)
    assert "with a narrower range" in measured.stdout  # ×/÷ 1.05, its own timed steps


def test_an_anchored_estimate_and_plan_show_the_recordings_memory(db: str) -> None:
    # was: the step anchored on the H200's recording (nvidia-smi 13.99 GiB) and the memory the
    # model's 12.8 GiB beside it
    from gpuplan.perf.memory import CONTEXT_GIB

    doc = json.loads(H200_RECORDING.read_text(encoding="utf-8"))["memory"]
    stored = runner.invoke(app, ["--db", db, "measure", str(H200_WORKLOAD), "--from", str(H200_RECORDING)])
    assert stored.exit_code == 0, stored.output
    est = runner.invoke(
        app, ["--db", db, "estimate", str(H200_WORKLOAD), "-g", "H200-SXM", "-g", "A100-SXM4-80GB", "--json"]
    )
    assert est.exit_code == 0, est.output
    own, other = json.loads(est.stdout)["estimates"]
    mem = own["memory"]
    assert mem["measured_on"] == "H200-SXM"
    assert mem["nvidia_smi_gib"] == pytest.approx(doc["nvidia_smi_gib"])  # 13.99
    assert mem["reserved_gib"] == pytest.approx(doc["peak_reserved_gib"])
    assert mem["peak_allocated_gib"] == pytest.approx(doc["peak_allocated_gib"])
    # on the A100 the tensors and the cache as measured, the context moved: Ampere 0.40 − Hopper 0.50
    moved = other["memory"]
    assert moved["measured_on"] == "H200-SXM"
    assert moved["reserved_gib"] == pytest.approx(doc["peak_reserved_gib"])
    context = CONTEXT_GIB["Ampere"][1] - CONTEXT_GIB["Hopper"][1]
    assert moved["nvidia_smi_gib"] == pytest.approx(doc["nvidia_smi_gib"] + context)
    assert any("memory as measured on H200-SXM" in n for n in other["notes"])
    table = runner.invoke(
        app, ["--db", db, "estimate", str(H200_WORKLOAD), "-g", "H200-SXM"], env={"COLUMNS": "200"}
    )
    assert "⚓ 14.0" in table.stdout and "memory: what nvidia-smi showed on H200-SXM" in table.stdout
    # one GPU each (the cheapest options of this job are on several, now that they pay for checkpoints)
    plan = runner.invoke(app, ["--db", db, "plan", str(H200_WORKLOAD), "--json", "--max-gpus", "1"])
    assert plan.exit_code == 0, plan.output
    # every one-GPU option's memory is the recording's (DDP on more GPUs adds its buckets and NCCL)
    ones = [o for o in json.loads(plan.stdout)["options"] if o["gpu_count"] == 1]
    assert ones and all(o["peak_memory_gib"] >= doc["nvidia_smi_gib"] - 0.25 for o in ones)


def _store_both(db: str) -> None:
    for workload, recording in ((WORKLOAD, RECORDING), (H200_WORKLOAD, H200_RECORDING)):
        stored = runner.invoke(app, ["--db", db, "measure", str(workload), "--from", str(recording)])
        assert stored.exit_code == 0, stored.output


def test_the_stored_recordings_are_listed_with_their_step_and_memory(db: str) -> None:
    empty = runner.invoke(app, ["--db", db, "catalog", "recordings", "list"])
    assert empty.exit_code == 0 and "no recordings stored" in empty.stdout
    _store_both(db)
    listed = runner.invoke(app, ["--db", db, "catalog", "recordings", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    cpu, h200 = json.loads(listed.stdout)["recordings"]  # oldest first: the CPU's of 2026-12-02
    h200_doc = json.loads(H200_RECORDING.read_text(encoding="utf-8"))
    assert (cpu["id"], cpu["workload"], cpu["device"], cpu["gpu_id"]) == (1, "gpt2-lora-tiny", "cpu", None)
    assert cpu["nvidia_smi_gib"] is None and cpu["problem"] is None
    assert (h200["id"], h200["workload"], h200["gpu_id"]) == (2, "resnet50-imagenet", "H200-SXM")
    assert h200["measured_at"] == h200_doc["run"]["measured_at"]
    assert h200["step_time_s"] == pytest.approx(h200_doc["step_time"]["median_s"])
    assert h200["nvidia_smi_gib"] == pytest.approx(h200_doc["memory"]["nvidia_smi_gib"])
    table = runner.invoke(app, ["--db", db, "catalog", "recordings", "list"], env={"COLUMNS": "200"})
    assert table.exit_code == 0
    row = next(line for line in table.stdout.splitlines() if "resnet50-imagenet" in line)
    assert row.split()[:2] == ["2", "resnet50-imagenet"] and "H200-SXM" in row
    assert "87.1 ms" in row and "13.99" in row and "13.23" in row


def test_a_recording_is_deleted_by_id_and_estimates_stop_anchoring_on_it(db: str) -> None:
    _store_both(db)
    gone = runner.invoke(app, ["--db", db, "catalog", "recordings", "delete", "2"])
    assert gone.exit_code == 0, gone.output
    assert "deleted recording 2: resnet50-imagenet on H200-SXM" in gone.stdout
    left = json.loads(runner.invoke(app, ["--db", db, "catalog", "recordings", "list", "--json"]).stdout)
    assert [r["id"] for r in left["recordings"]] == [1]
    est = runner.invoke(app, ["--db", db, "estimate", str(H200_WORKLOAD), "-g", "H200-SXM", "--json"])
    assert json.loads(est.stdout)["estimates"][0]["anchored"] is None


@pytest.mark.parametrize(
    ("ids", "says"),
    [
        (["7"], "unknown recording id '7'; use one of: 1, 2"),
        # a workload's name given for an id: its recordings' ids
        (["resnet50-imagenet"], "unknown recording id 'resnet50-imagenet'; did you mean '2'?"),
        # one good id beside an unknown one: nothing is deleted
        (["2", "9"], "unknown recording id '9'"),
    ],
)
def test_an_unknown_recording_id_is_one_line_and_deletes_nothing(db: str, ids: list[str], says: str) -> None:
    _store_both(db)
    result = runner.invoke(app, ["--db", db, "catalog", "recordings", "delete", *ids])
    assert result.exit_code == 1 and says in str(result.exception), result.output
    assert "see gpuplan catalog recordings list" in str(result.exception)
    left = json.loads(runner.invoke(app, ["--db", db, "catalog", "recordings", "list", "--json"]).stdout)
    assert [r["id"] for r in left["recordings"]] == [1, 2]
