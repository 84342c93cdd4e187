"""The generated train.py survives a spot interruption: 2 CPU processes (gloo) under torchrun are
sent SIGTERM after a checkpoint exists, checkpoint at the next step and exit, resume with the same
command, and finish with bit-identical weights and the same loss as a run never interrupted.

The uninterrupted reference run goes through the *multi-node* launch.sh (2 nodes x 1 process on
localhost, static rendezvous), so the same test also proves that path and that it computes exactly
what the single-node path does. (A hard kill, SIGKILL of one rank, is rehearsed in
test_deploy_fsdp.py.) Two "nodes" with a folder each (checkpoints on one of them only) resume from
that checkpoint whichever node starts first and whichever holds it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from deploy_helpers import FIXTURES
from torchrun_helpers import finish, free_port, latest_step, launch, wait_for_checkpoint_after

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate, write_files

STEPS = 18
# 64 synthetic samples, 2 ranks x batch 4: 8 micro-batches per rank per epoch, so the 18 steps
# cross two epoch boundaries and the sampler's epoch and position both have to be restored.
CKPT_EVERY = ["--ckpt-every-steps", "3"]


@pytest.fixture(scope="module")
def job_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One node x 2 ranks in job_dir, 2 nodes x 1 rank in job_dir/multinode: the same job."""
    out = tmp_path_factory.mktemp("torchrun")
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    write_files(generate(spec, "torchrun", GenerateOptions(steps=STEPS)), out)
    two_nodes = spec.model_copy(update={"nodes": 2, "gpus_per_node": 1})
    write_files(generate(two_nodes, "torchrun", GenerateOptions(steps=STEPS)), out / "multinode")
    return out


def test_launch_scripts_are_valid_bash(job_dir: Path) -> None:
    for d in (job_dir, job_dir / "multinode"):
        subprocess.run(["bash", "-n", str(d / "launch.sh")], check=True)
    single = (job_dir / "launch.sh").read_text()
    assert "--standalone" in single and 'NPROC_PER_NODE="${NPROC_PER_NODE:-2}"' in single
    multi = (job_dir / "multinode" / "launch.sh").read_text()
    for flag in (
        "--nnodes",
        "--node-rank",
        # static: NODE_RANK fixes the node's ranks (c10d ignores --node-rank)
        "--rdzv-backend static",
        '--master-addr "$MASTER_ADDR" --master-port "$MASTER_PORT"',
    ):
        assert flag in multi


def test_multinode_launch_refuses_to_start_without_master_addr(job_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "NODE_RANK")}
    r = subprocess.run(
        ["bash", str(job_dir / "multinode" / "launch.sh")], env=env, capture_output=True, text=True
    )
    assert r.returncode != 0 and "set MASTER_ADDR" in r.stderr


def _bare_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "NODE_RANK", "CKPT_DIR")}
    # A Python that fails at once: these launches must stop before torchrun starts.
    return {**env, "PYTHON": "false", **settings}


def test_multinode_launch_refuses_a_node_rank_that_is_not_one_of_its_nodes(job_dir: Path) -> None:
    for rank in ("k", "2", "-1", "0x1"):
        r = subprocess.run(
            ["bash", str(job_dir / "multinode" / "launch.sh")],
            env=_bare_env(MASTER_ADDR="127.0.0.1", NODE_RANK=rank, CKPT_DIR="/mnt/shared"),
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2, (rank, r.stderr)
        assert f"NODE_RANK must be a number from 0 to 1, not '{rank}'" in r.stderr


def test_multinode_launch_refuses_to_start_without_a_checkpoint_folder(job_dir: Path) -> None:
    launch_sh = str(job_dir / "multinode" / "launch.sh")
    nodes = {"MASTER_ADDR": "127.0.0.1", "NODE_RANK": "0"}
    r = subprocess.run(["bash", launch_sh], env=_bare_env(**nodes), capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "set CKPT_DIR (or --ckpt-dir) to storage every node sees" in r.stderr
    # Named, in the environment or as train.py's argument: it goes on to start torchrun ("false").
    for env, args in (({"CKPT_DIR": "/mnt/shared"}, []), ({}, ["--ckpt-dir", "ck"]), ({}, ["--ckpt-dir=ck"])):
        r = subprocess.run(["bash", launch_sh, *args], env=_bare_env(**nodes, **env), capture_output=True)
        assert r.returncode == 1, (env, args)  # `false`'s status, passed on by launch.sh


def test_sigterm_checkpoint_and_resume_match_an_uninterrupted_run(job_dir: Path) -> None:
    t0 = time.monotonic()
    ckpt = job_dir / "ck-spot"
    # 1. Reference, never interrupted: two "nodes" on localhost (node 0 hosts the rendezvous and
    #    writes the checkpoints and the result), side by side with the run to interrupt.
    multinode, port = job_dir / "multinode", str(free_port())
    reference_nodes = [
        launch(multinode, "--ckpt-dir", "ck-ref", *CKPT_EVERY, "--result-file", "ref.json",
               MASTER_ADDR="127.0.0.1", MASTER_PORT=port, NODE_RANK=str(rank))
        for rank in (0, 1)
    ]  # fmt: skip

    # 2. Spot notice: once the step-3 checkpoint exists, SIGTERM goes to launch.sh's process group;
    #    launch.sh forwards it to torchrun (its own group), which signals the ranks. --throttle-s
    #    keeps the run from finishing first.
    proc = launch(job_dir, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--throttle-s", "0.25", NPROC_PER_NODE="2")
    wait_for_checkpoint_after(ckpt, 2, proc)
    os.killpg(proc.pid, signal.SIGTERM)
    rc, out = finish(proc)
    assert "SIGTERM: saved" in out, out[-3000:]
    assert "Traceback" not in out  # torchrun's SignalException: launch.sh's line says it instead
    assert rc == 143  # launch.sh's own status: an interrupted run, to be resumed (not torchrun's 1)
    stopped_at = latest_step(ckpt)
    assert 3 <= stopped_at < STEPS
    assert not list(ckpt.glob("*.tmp"))  # the atomic write left no partial file

    for node in reference_nodes:
        rc, out = finish(node)
        assert rc == 0, out[-3000:]
    reference = json.loads((multinode / "ref.json").read_text())
    assert reference["step"] == STEPS

    # 3. Resume with the same command: it picks up the newest checkpoint and finishes.
    rc, out = finish(
        launch(
            job_dir, "--ckpt-dir", str(ckpt), *CKPT_EVERY, "--result-file", "resumed.json", NPROC_PER_NODE="2"
        )
    )
    assert rc == 0, out[-3000:]
    assert f"resumed from step {stopped_at}" in out
    resumed = json.loads((job_dir / "resumed.json").read_text())
    assert resumed == reference  # same final loss, bit-identical weights (SHA-256 of every tensor)
    elapsed = time.monotonic() - t0
    assert elapsed < 180, f"kill-and-resume took {elapsed:.0f} s"


def test_a_finished_runs_checkpoint_folder_is_said_to_hold_a_finished_run(job_dir: Path) -> None:
    # A second run given the first one's folder "resumed from step 3 … done: step 3" on the old
    # weights, and said nothing more. It says so plainly, and still exits 0: a managed job
    # recovered after its last checkpoint must end as succeeded.
    ckpt = job_dir / "ck-finished"
    rc, first = finish(launch(job_dir, "--ckpt-dir", str(ckpt), "--steps", "3", NPROC_PER_NODE="1"))
    assert rc == 0 and "done: step 3" in first, first[-3000:]
    assert "finished run" not in first
    rc, again = finish(launch(job_dir, "--ckpt-dir", str(ckpt), "--steps", "3", NPROC_PER_NODE="1"))
    assert rc == 0, again[-3000:]
    assert f"{ckpt} holds a finished run (step 3 of 3): nothing to train" in again
    assert "Use a new directory (--ckpt-dir / CKPT_DIR) for a new run" in again
    assert "resumed from step" not in again


def test_two_nodes_with_a_folder_each_resume_from_the_checkpoint_on_either(
    job_dir: Path, tmp_path: Path
) -> None:
    """Each "node" has its own copy of the folder and a local checkpoint folder. Run 1: node A is
    NODE_RANK 0 and writes the checkpoints. Run 2: A starts first as NODE_RANK 1 and B, which has
    no checkpoint, is NODE_RANK 0. Rank 0 must be on B (NODE_RANK means what the README says), and
    the run must resume from A's checkpoint, never restart from step 0, and end bit-identical."""
    node_a, node_b = tmp_path / "A", tmp_path / "B"
    for node in (node_a, node_b):
        shutil.copytree(job_dir / "multinode", node, ignore=shutil.ignore_patterns("ck-*", "*.json"))
    steps = ["--steps", "4", "--ckpt-every-steps", "2", "--ckpt-dir", "ck", "--result-file", "result.json"]

    def run(first: tuple[Path, int], second: tuple[Path, int]) -> list[str]:
        port, outs = str(free_port()), []
        procs = []
        for folder, rank in (first, second):
            procs.append(
                launch(folder, *steps, MASTER_ADDR="127.0.0.1", MASTER_PORT=port, NODE_RANK=str(rank))
            )
            time.sleep(0.5)  # the first one's torchrun starts first (c10d would make it rank 0)
        for proc in procs:
            rc, out = finish(proc)
            assert rc == 0, out[-3000:]
            outs.append(out)
        return outs

    # Run 1, never interrupted: A's folder holds step 2 and 4 and the reference result.
    run((node_a, 0), (node_b, 1))
    assert latest_step(node_a / "ck") == 4 and not (node_b / "ck").exists()
    reference = json.loads((node_a / "result.json").read_text())
    (node_a / "ck" / "step_00000004.pt").unlink()  # as if interrupted after step 2

    # Run 2: NODE_RANK 1 (A, the checkpoint's node) starts first, NODE_RANK 0 (B) second.
    out_a, out_b = run((node_a, 1), (node_b, 0))
    assert "resumed from step 2" in out_b, out_b[-3000:]  # printed by rank 0, on node B
    assert "the newest checkpoint, step 2, is only on node 1" in out_b
    assert "CKPT_DIR must be storage every node sees" in out_b
    assert "resumed" not in out_a
    assert latest_step(node_b / "ck") == 4  # rank 0, on B, wrote the new ones
    assert json.loads((node_b / "result.json").read_text()) == reference  # bit-identical weights


# ---- a different number of GPUs on resume -------------------------------------------------------


@pytest.fixture(scope="module")
def two_rank_checkpoint(job_dir: Path) -> Path:
    """A checkpoint at step 3 written by 2 ranks x batch 4 x 1 accumulation step (global batch 8):
    3 micro-batches per rank, 24 of epoch 0's 64 samples seen."""
    rc, out = finish(launch(job_dir, "--steps", "3", "--ckpt-dir", "ck-2ranks", NPROC_PER_NODE="2"))
    assert rc == 0, out[-3000:]
    assert latest_step(job_dir / "ck-2ranks") == 3
    return job_dir / "ck-2ranks"


def test_a_checkpoint_of_2_ranks_resumes_on_1_with_the_same_global_batch_and_samples(
    job_dir: Path, two_rank_checkpoint: Path, tmp_path: Path
) -> None:
    import torch

    ckpt = tmp_path / "ck"
    shutil.copytree(two_rank_checkpoint, ckpt)
    rc, out = finish(launch(job_dir, "--steps", "6", "--ckpt-dir", str(ckpt), NPROC_PER_NODE="1"))
    assert rc == 0, out[-3000:]
    assert "resumed from step 3" in out
    warning = (
        "[tiny-lm] WARNING: resuming step 3 of a checkpoint written by 2 ranks on 1 rank: model and "
        "optimizer state are loaded in full; the global batch stays 8 samples (4 per GPU x 1 GPU x 2 "
        "accumulation steps, was 4 per GPU x 2 GPUs x 1 accumulation step), so the learning-rate schedule "
        "is unchanged; epoch 0 goes on after the 24 samples already seen; per-rank RNG states cannot move "
        "to another number of ranks, so each rank is reseeded from --seed and the step: the run is correct "
        "but not bit-identical to an uninterrupted one\n"
    )
    assert warning in out and out.count("WARNING") == 1
    final = torch.load(ckpt / "step_00000006.pt", weights_only=False)
    assert final["world_size"] == 1 and final["batch"]["accumulation"] == 2
    # 24 samples seen = 6 micro-batches of 4 on one rank; 3 more steps x 2 micro-batches each: 12.
    # (Without the conversion the rank would restart at micro-batch 3; with 1 accumulation step it
    # would reach 6 or 9.) The 2-rank run would be at 6 micro-batches per rank: 48 samples either way.
    assert (final["progress"]["epoch"], final["progress"]["position"], final["progress"]["offset"]) == (
        0,
        12,
        0,
    )


def test_a_global_batch_that_the_new_gpu_count_does_not_divide_is_refused_in_one_line(
    job_dir: Path, two_rank_checkpoint: Path, tmp_path: Path
) -> None:
    ckpt = tmp_path / "ck"
    shutil.copytree(two_rank_checkpoint, ckpt)
    rc, out = finish(launch(job_dir, "--steps", "6", "--ckpt-dir", str(ckpt), NPROC_PER_NODE="3"))
    assert rc != 0
    refusal = (
        "checkpoint's global batch of 8 samples (4 per GPU x 2 GPUs x 1 accumulation step) is not a whole "
        "number of accumulation steps on 3 GPUs x 4 per GPU, and changing it would change the training: "
        "resume on 1 or 2 GPUs, or start fresh with another --ckpt-dir\n"
    )
    assert out.count(refusal) == 1, out[-3000:]  # said once, by rank 0
    assert latest_step(ckpt) == 3  # nothing trained, nothing written


def _train_py(job_dir: Path) -> Any:
    spec = importlib.util.spec_from_file_location("generated_train", job_dir / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("old_world", "old_batch", "old_accumulation", "position", "world", "batch", "repeated"),
    [
        (2, 4, 1, 3, 1, 4, 0),  # 24 samples seen, 1 rank x 6 micro-batches
        (4, 2, 3, 5, 3, 2, 1),  # 40 seen: 3 ranks skip 13 each (39), the 40th is seen again
        (3, 2, 2, 4, 4, 3, 0),  # 24 seen: 4 ranks x 6 = 2 micro-batches of 3, offset 0
        (2, 3, 2, 3, 3, 2, 0),  # 18 seen: 3 ranks x 6 = 3 micro-batches of 2
        (1, 4, 4, 3, 2, 2, 0),  # 12 seen: 2 ranks x 6 = 3 micro-batches of 2
        (2, 4, 3, 3, 3, 2, 0),  # 24 seen: 3 ranks x 8 = 4 micro-batches of 2
        (4, 1, 3, 3, 3, 2, 0),  # 12 seen: 3 ranks x 4 = 2 micro-batches of 2
        (2, 2, 3, 3, 3, 4, 0),  # 12 seen: 3 ranks x 4 = 1 micro-batch of 4
        (3, 2, 1, 1, 2, 3, 0),  # 6 seen: 2 ranks x 3 = 1 micro-batch of 3
        (2, 6, 1, 1, 4, 3, 0),  # 12 seen: 4 ranks x 3 = 1 micro-batch of 3
        (2, 2, 3, 1, 4, 3, 0),  # 4 seen: 4 ranks x 1: offset 1 into the first micro-batch of 3
    ],
)
def test_resuming_on_another_rank_count_goes_on_after_the_samples_already_seen(
    job_dir: Path,
    old_world: int,
    old_batch: int,
    old_accumulation: int,
    position: int,
    world: int,
    batch: int,
    repeated: int,
) -> None:
    """The sampler order of the ranks before, up to their position, then of the ranks after, from
    the converted position: the epoch's order once through, less only the repeated items."""
    train = _train_py(job_dir)
    dataset = list(range(61))  # a prime: every rank count drops a different tail
    ckpt = {
        "world_size": old_world,
        "batch": {"per_gpu": old_batch, "accumulation": old_accumulation, "batched": False},
        "progress": {"step": 7, "epoch": 2, "position": position, "offset": 0, "loss": 0.0},
    }
    progress, accumulation, warning = train.rescale_progress(ckpt, world, batch, False)
    assert accumulation * batch * world == old_batch * old_world * old_accumulation

    def order(ranks: int, start_batch: int, start_offset: int, per_batch: int) -> list[list[int]]:
        out = []
        for rank in range(ranks):
            sampler = train.ResumableSampler(
                dataset, per_batch, num_replicas=ranks, rank=rank, shuffle=True, seed=0, drop_last=True
            )
            sampler.set_epoch(progress["epoch"])
            sampler.start_batch, sampler.start_offset = start_batch, start_offset
            out.append(list(sampler))
            assert len(sampler) == len(out[-1])
        return out

    before = [shard[: position * old_batch] for shard in order(old_world, 0, 0, old_batch)]
    after = order(world, progress["position"], progress["offset"], batch)
    # Read back in the epoch's global order: rank r's k-th item is the order's item k * ranks + r.
    seen = [i for step in zip(*before, strict=True) for i in step]
    goes_on = [i for step in zip(*after, strict=False) for i in step]
    epoch = order(1, 0, 0, 1)[0]
    assert seen == epoch[: len(seen)]
    assert goes_on[:repeated] == seen[len(seen) - repeated :]
    assert goes_on[repeated:] == epoch[len(seen) : len(seen) + len(goes_on) - repeated]
    assert ("seen again" in warning) == (repeated > 0)


def test_the_readme_and_launch_sh_say_which_gpu_counts_resume_a_checkpoint(tmp_path: Path) -> None:
    spec = LaunchSpec.from_workload(FIXTURES / "train.yaml", count=2)
    spec = spec.model_copy(update={"gradient_accumulation": 3})
    files = {f.path: f.content for f in generate(spec, "torchrun", GenerateOptions(steps=STEPS))}
    # 4 per GPU x 2 GPUs x 3 accumulation steps = 24 samples: any count dividing 2 x 3 = 6 keeps it.
    readme = " ".join(files["README.md"].split())
    assert "**If the GPU count changes between runs**" in readme
    assert (
        "train.py keeps the global batch, 24 samples (4 per GPU × 2 GPUs × 3 accumulation step(s))" in readme
    )
    assert "with this batch these counts work: 1, 2, 3, 6." in readme
    assert "# NPROC_PER_NODE=N ./launch.sh runs on N GPUs per node." in files["launch.sh"]


def test_resuming_on_another_rank_count_is_refused_in_one_line_where_it_cannot_be_exact(
    job_dir: Path,
) -> None:
    train = _train_py(job_dir)
    progress = {"step": 3, "epoch": 0, "position": 3, "loss": 0.0}  # as an older train.py saved it
    old = {"world_size": 2, "progress": progress}
    with pytest.raises(SystemExit, match=r"does not record its batch size \(an older train\.py\)"):
        train.rescale_progress(old, 1, 4, False)
    ckpt = {**old, "batch": {"per_gpu": 4, "accumulation": 1, "batched": True}}
    # make_inputs() micro-batches of another size would be other data altogether.
    with pytest.raises(SystemExit, match=r"resume with --batch-size 4$"):
        train.rescale_progress(ckpt, 1, 2, True)
    # 8 samples a step; 3 per GPU divides no count of GPUs into it.
    with pytest.raises(SystemExit, match="no GPU count does with --batch-size 3; use --batch-size 4, or"):
        train.rescale_progress(ckpt, 1, 3, False)
    # Whole micro-batches (make_inputs): 2 ranks x 3 of them seen, 1 rank goes on at the 7th.
    progress, accumulation, warning = train.rescale_progress(ckpt, 1, 4, True)
    assert (progress["position"], progress["offset"], accumulation) == (6, 0, 2)
    assert "epoch 0 goes on after the 6 micro-batches already seen;" in warning


def test_a_checkpoint_is_written_with_one_complete_checkpoint_beside_it_at_the_most(
    job_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder never holds more than KEEP_CHECKPOINTS checkpoints, the one being written
    included (what the plan prices and the checkpoint volume is sized for): the oldest are deleted
    before the write, with a *.tmp a killed write left, and the newest complete one stays."""
    import torch
    import torch.distributed as dist

    train = _train_py(job_dir)
    ckpt = tmp_path / "ck"
    ckpt.mkdir()
    for name in ("step_00000001.pt", "step_00000002.pt", "step_00000009.pt.tmp"):
        (ckpt / name).write_bytes(b"x")
    seen_while_writing: list[list[str]] = []
    save = torch.save

    def watched(obj: Any, f: Any, *args: Any, **kwargs: Any) -> None:
        if getattr(f, "name", None) == str(ckpt / "step_00000003.pt.tmp"):  # the checkpoint's write
            seen_while_writing.append(sorted(p.name for p in ckpt.iterdir()))
        save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", watched)
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'rdzv'}", rank=0, world_size=1)
    try:
        model = torch.nn.Linear(2, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        progress = {"step": 3, "epoch": 0, "position": 3, "offset": 0, "loss": 0.0}
        layout = {"per_gpu": 1, "accumulation": 1, "batched": False}
        train.save_checkpoint(ckpt, model, optimizer, progress, torch.device("cpu"), layout)
    finally:
        dist.destroy_process_group()
    assert train.KEEP_CHECKPOINTS == 2
    # while step 3 is written: the newest complete checkpoint and the one being written, no more
    assert seen_while_writing == [["step_00000002.pt", "step_00000003.pt.tmp"]]
    assert sorted(p.name for p in ckpt.iterdir()) == ["step_00000002.pt", "step_00000003.pt"]


def test_a_sharded_checkpoint_is_refused_in_one_line_by_a_run_that_writes_them_whole(
    job_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An FSDP run's checkpoint (a folder of every rank's parts) met by a DDP run: one line, not a
    traceback, and nothing loaded."""
    import torch
    import torch.distributed as dist

    train = _train_py(job_dir)
    assert train.PARALLELISM == "ddp" and not train.SHARDED_CHECKPOINTS
    ckpt = tmp_path / "ck"
    (ckpt / "step_00000004").mkdir(parents=True)
    torch.save({"progress": {"step": 4}, "sharded": True}, ckpt / "step_00000004" / train.TRAIN_STATE)
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'rdzv'}", rank=0, world_size=1)
    try:
        model = torch.nn.Linear(2, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        layout = {"per_gpu": 1, "accumulation": 1, "batched": False}
        with pytest.raises(SystemExit) as e:
            train.load_latest_checkpoint(ckpt, model, optimizer, torch.device("cpu"), layout, 0)
    finally:
        dist.destroy_process_group()
    assert e.value.code == 1
    assert capsys.readouterr().err == (
        "the newest checkpoint, step 4, is sharded (written by an FSDP run) and this run's PARALLELISM is "
        'ddp: resume with PARALLELISM = "fsdp", or start fresh with another --ckpt-dir\n'
    )
