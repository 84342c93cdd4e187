#!/usr/bin/env python3
"""Batch inference, written by `gpuplan deploy` next to train.py: one pass over the inputs, then exit.

It runs the model that train.py builds (build_model() in train.py: your entry point or the
stand-in), loading the newest checkpoint from CKPT_DIR when there is one. It needs PyTorch only.

    python batch.py --input inputs.jsonl --output outputs/ --shard 0 --shards 2

Inputs (--input, or INPUT_PATH): one JSON Lines file, or a folder of them (every *.jsonl in it,
read in name order). One line is one sample: the model's input as a JSON array (token ids for a
language model, a feature vector, [3][H][W] pixels for an image model), or an object
{"id": ..., "input": [...]} whose id is copied to its output. Blank lines are skipped. The samples
of one batch must have the same shape.

Outputs (--output, or OUTPUT_DIR): chunk-00000000.jsonl, chunk-00000001.jsonl, ... one line per
sample, {"index": N, "output": ...} (and "id" where the input had one), N counting the samples from
0 in input order. The chunk files in name order hold the outputs in input order.

Shards: the samples are cut into chunks of --chunk-size in input order, and chunk c is shard
c % shards's to run. The shard is --shard, else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job
sets it in each pod); the count is --shards, else SHARD_COUNT.

Resuming: a chunk is written to a temporary name and renamed when whole, so a chunk file that exists
is complete: a shard started again (a spot node reclaimed, a pod failed) skips the chunks already
written and runs the rest. OUTPUT_DIR/_batch.json keeps the chunk size the chunks were cut at; a run
with another one is refused (its chunk numbers would name other samples). OUTPUT_DIR/_inputs/ keeps
a fingerprint (SHA-256) of the input lines each chunk was made from: a chunk written from other
inputs (another night's, or the same file with a line added or removed) is refused, never kept as
this run's: empty OUTPUT_DIR, or give another --output, for new inputs.

Device: where CUDA sees no GPU it exits at once with one line (as train.py does) and writes nothing;
--device cpu runs the batch on the CPU on purpose (a dry run).

Exit status: 0 once every chunk of the shard is written; 143 after SIGTERM (the chunk being run is
dropped and run again next time); 2 for bad inputs or arguments (they fail the same way on any
machine); 3 where CUDA sees no GPU (train.EXIT_NO_GPU: the machine, not the inputs).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train

#: Batches of --batch-size samples in one output chunk (the default --chunk-size): the work a
#: reclaimed pod may have to redo.
CHUNK_BATCHES = 64

#: Exit status after SIGTERM: 128 + 15, what a shell reports for a process ended by SIGTERM. The
#: Job's podFailurePolicy does not count it as a failure: the shard's pod is started again.
EXIT_PREEMPTED = 143

#: The file in the output folder that keeps the chunk size the outputs were cut at.
STATE_FILE = "_batch.json"

#: The folder in the output folder that keeps each chunk's inputs' fingerprint.
INPUTS_DIR = "_inputs"


# ==== YOUR OUTPUTS ================================================================================
def postprocess(output: Any) -> list[Any]:
    """One JSON value per sample from the model's output for a batch. As serve.py: the arg-max of the
    logits (a class id, or a next-token id per position). For embeddings return the vectors:
    ``return output.float().tolist()`` (or the pooled hidden state of your model)."""
    logits = output.logits if hasattr(output, "logits") else output
    return logits.argmax(-1).tolist()


# ==== END OF YOUR OUTPUTS =========================================================================


#: Exit status for bad inputs or arguments (BadInput; argparse's own for a bad argument): they fail
#: the same way on any machine, so the Job's podFailurePolicy fails the shard's index at once.
EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """An input or argument batch.py cannot run: one line, exit status EXIT_BAD_INPUT."""


class Preempted(Exception):
    """SIGTERM arrived."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Preempted


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ
    p = argparse.ArgumentParser(
        description=f"Batch inference of {train.JOB_NAME} ({train.MODEL_SOURCE}).",
        epilog=f"Exit status: 0 once every chunk of the shard is written; {EXIT_PREEMPTED} after SIGTERM; "
        f"{EXIT_BAD_INPUT} for bad inputs or arguments; {train.EXIT_NO_GPU} where CUDA sees no GPU.",
    )
    p.add_argument(
        "--input", default=env.get("INPUT_PATH", "inputs"), help="a .jsonl file or a folder of them"
    )
    p.add_argument("--output", default=env.get("OUTPUT_DIR", "outputs"), help="folder of the chunk files")
    p.add_argument("--shard", type=int, default=int(env.get("JOB_COMPLETION_INDEX", "0")))
    p.add_argument("--shards", type=int, default=int(env.get("SHARD_COUNT", "1")))
    p.add_argument("--batch-size", type=int, default=train.BATCH_SIZE, help="samples per forward pass")
    p.add_argument("--chunk-size", type=int, default=None, help="samples per output chunk")
    train.add_stand_in_options(p)
    p.add_argument("--ckpt-dir", default=env.get("CKPT_DIR", "checkpoints"))
    p.add_argument(
        "--throttle-s", type=float, default=0.0, help="sleep after each batch: rehearse a preemption by hand"
    )
    train.add_device_option(p, "run the batch")
    args = p.parse_args(argv)
    if args.chunk_size is None:
        args.chunk_size = args.batch_size * CHUNK_BATCHES
    if args.shards < 1 or not 0 <= args.shard < args.shards:
        p.error(f"--shard must be from 0 to {args.shards - 1} (--shards {args.shards}); got {args.shard}")
    if args.batch_size < 1 or args.chunk_size < 1:
        p.error("--batch-size and --chunk-size must be at least 1")
    return args


def input_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix == ".jsonl" and p.is_file())
        if not files:
            raise BadInput(f"{path} holds no .jsonl file")
        return files
    if path.is_file():
        return [path]
    raise BadInput(f"{path}: no such file or folder (give --input or INPUT_PATH)")


def chunks(files: list[Path], chunk_size: int) -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """(chunk number, [(where, line), ...]) in input order; lines are parsed only where run."""
    number, lines = 0, []
    for f in files:
        with f.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                lines.append((f"{f.name}:{i}", line))
                if len(lines) == chunk_size:
                    yield number, lines
                    number, lines = number + 1, []
    if lines:
        yield number, lines


def parse(where: str, line: str) -> tuple[Any, Any]:
    """(id or None, input) of one line."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadInput(f"{where}: not JSON ({e.msg})") from None
    if isinstance(value, dict):
        if "input" not in value:
            raise BadInput(f"{where}: an object needs an 'input' field")
        return value.get("id"), value["input"]
    if not isinstance(value, list):
        raise BadInput(f"{where}: expected a JSON array or an object with 'input'")
    return None, value


def chunk_path(out: Path, number: int) -> Path:
    return out / f"chunk-{number:08d}.jsonl"


def write_atomic(path: Path, text: str) -> None:
    """``text`` at ``path``, whole or not at all: a temp file in the same folder, fsynced, renamed."""
    tmp = path.with_name(f".{path.name}.{socket.gethostname()}-{os.getpid()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def check_state(out: Path, chunk_size: int) -> None:
    """The chunk size the outputs in ``out`` were cut at must be this run's."""
    state = out / STATE_FILE
    if state.exists():
        before = json.loads(state.read_text(encoding="utf-8")).get("chunk_size")
        if before != chunk_size:
            raise BadInput(
                f"{out} holds chunks of {before} samples, this run cuts {chunk_size}: run with "
                f"--chunk-size {before}, or give another --output"
            )
        return
    write_atomic(state, json.dumps({"chunk_size": chunk_size}) + "\n")


def fingerprint(rows: list[tuple[str, str]]) -> str:
    """SHA-256 of a chunk's input lines (blank lines left out, as the chunk leaves them)."""
    digest = hashlib.sha256()
    for _, line in rows:
        digest.update(line.rstrip("\n").encode("utf-8") + b"\n")
    return digest.hexdigest()


def check_written(out: Path, path: Path, rows: list[tuple[str, str]]) -> None:
    """``path``, a chunk already written, must be of these inputs (its fingerprint in INPUTS_DIR)."""
    mark = out / INPUTS_DIR / f"{path.stem}.sha256"
    said = mark.read_text(encoding="utf-8").strip() if mark.exists() else None
    if said != fingerprint(rows):
        raise BadInput(
            f"{out / path.name} was written from other inputs than these (other lines, or lines "
            f"added or removed since): empty {out}, or give another --output, to run these"
        )


def write_chunk(out: Path, path: Path, rows: list[tuple[str, str]], text: str) -> None:
    """The chunk's fingerprint, then the chunk: a chunk file never stands without its inputs'."""
    (out / INPUTS_DIR).mkdir(exist_ok=True)
    write_atomic(out / INPUTS_DIR / f"{path.stem}.sha256", fingerprint(rows) + "\n")
    write_atomic(path, text)


def load_model(args: argparse.Namespace, device: torch.device) -> torch.nn.Module:
    # Seeded: every shard's pod builds the same weights where no checkpoint replaces them (the
    # stand-in), so that one input gets one output whichever shard runs it.
    torch.manual_seed(0)
    model = train.build_model(args.width, args.depth)
    paths = train.checkpoint_paths(Path(args.ckpt_dir))
    if paths:
        state = torch.load(paths[-1], map_location="cpu", weights_only=False)["model"]
        model.load_state_dict(state)
    return model.to(device).eval()


def run_chunk(
    model: torch.nn.Module,
    rows: list[tuple[str, str]],
    start: int,
    args: argparse.Namespace,
    device: torch.device,
) -> str:
    """The output lines of one chunk whose first sample is number ``start``."""
    parsed = [parse(where, line) for where, line in rows]
    dtype = train.autocast_dtype() if device.type == "cuda" else None
    lines = []
    for b in range(0, len(parsed), args.batch_size):
        batch = parsed[b : b + args.batch_size]
        try:
            x = torch.tensor([value for _, value in batch], device=device)
        except (ValueError, TypeError) as e:
            raise BadInput(f"{rows[b][0]}: the batch from here cannot be one tensor ({e})") from None
        with torch.inference_mode(), torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            outputs = postprocess(model(x))
        for k, ((sample_id, _), output) in enumerate(zip(batch, outputs, strict=True)):
            row = {"index": start + b + k, "output": output}
            if sample_id is not None:
                row["id"] = sample_id
            lines.append(json.dumps(row) + "\n")
        if args.throttle_s:
            time.sleep(args.throttle_s)
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tag = f"[{train.JOB_NAME} shard {args.shard}/{args.shards}]"
    signal.signal(signal.SIGTERM, _on_sigterm)
    # A GPU node whose container cannot see its GPUs would run the batch at CPU speed, billed at the
    # GPU's price: refused in one line (train.py's), before any output is written.
    train.require_gpu(args.device, "batch.py", "run the batch")
    device = torch.device(args.device)
    try:
        files = input_files(Path(args.input))
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        check_state(out, args.chunk_size)
        model = load_model(args, device)
        done = skipped = samples = 0
        seen = False
        for number, rows in chunks(files, args.chunk_size):
            seen = True
            if number % args.shards != args.shard:
                continue
            path = chunk_path(out, number)
            if path.exists():
                check_written(out, path, rows)
                skipped += 1
                continue
            write_chunk(out, path, rows, run_chunk(model, rows, number * args.chunk_size, args, device))
            done += 1
            samples += len(rows)
            print(f"{tag} wrote {path.name} ({len(rows)} samples)", flush=True)
        if not seen:  # an upstream step that wrote nothing is not a run's work done
            raise BadInput(f"{', '.join(f.name for f in files)} hold no sample (only blank lines, or empty)")
    except BadInput as e:
        print(f"{tag} error: {e}", file=sys.stderr, flush=True)
        return EXIT_BAD_INPUT
    except Preempted:
        print(f"{tag} SIGTERM: stopped; started again, it skips the chunks written", flush=True)
        return EXIT_PREEMPTED
    print(
        f"{tag} done: {done} chunks written ({samples} samples), {skipped} already written before",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
