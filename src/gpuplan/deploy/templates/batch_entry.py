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

Pre-processing (decoding audio or images, computing features) is yours: where the module of your
model (MODEL_ENTRY_POINT in train.py) has a function ``preprocess(inputs)``, batch.py calls it on
each batch's inputs, the JSON values as read (a file path in an object's "input", say), and runs
the model on what it returns: a tensor, or a dict of tensors passed as keyword arguments.

Outputs (--output, or OUTPUT_DIR): chunk-00000-00000000.jsonl, chunk-00000-00000001.jsonl, ...
(chunk-SHARD-N), one line per sample, {"file": "a.jsonl", "offset": B, "output": ...} (and "id"
where the input had one): the input file's name and the byte offset its line starts at, which name
the line whatever the shard count, without reading the inputs before it. The chunk files in name
order hold the outputs in input order.

Shards: the inputs' bytes (the files end to end, in name order) are cut into --shards ranges of
equal size, and a shard runs the lines that begin in its range: it starts at the first line that
begins at or after the range's start and reads on to the last line that begins before its end (the
way Hadoop's TextInputFormat splits a file of lines). A shard reads its part of the inputs only,
never the rest, and every line is one shard's. It cuts its lines into chunks of --chunk-size. The
shard is --shard, else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it in each pod); the
count is --shards, else SHARD_COUNT.

Resuming: a chunk is written to a temporary name and renamed when whole, so a chunk file that exists
is complete: a shard started again (a spot node reclaimed, a pod failed) skips the chunks already
written and runs the rest. OUTPUT_DIR/_batch.json keeps the chunk size and the shard count the
chunks were cut at; a run with another is refused (its chunk names would name other samples).
OUTPUT_DIR/_inputs/ keeps a fingerprint (SHA-256) of the input lines each chunk was made from: a
chunk written from other inputs (another night's, or the same file with a line added or removed) is
refused, never kept as this run's: empty OUTPUT_DIR, or give another --output, for new inputs.

Device: where CUDA sees no GPU it exits at once with one line (as train.py does) and writes nothing;
--device cpu runs the batch on the CPU on purpose (a dry run).

Exit status: 0 once every chunk of the shard is written; 143 after SIGTERM (the chunk being run is
dropped and run again next time); 2 for bad inputs or arguments (they fail the same way on any
machine); 3 where CUDA sees no GPU (train.EXIT_NO_GPU: the machine, not the inputs).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
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


#: One input line: its file, the byte offset it starts at, and its text.
Row = tuple[Path, int, str]


def shard_lines(files: list[Path], shard: int, shards: int) -> Iterator[Row]:
    """The lines of the shard's part of the inputs, in input order: the inputs' bytes (the files
    end to end) cut into ``shards`` ranges of equal size, a line the shard's whose first byte is in
    its range (as Hadoop's TextInputFormat splits a file of lines). The shard reads its range and
    at most one line past its end, never the rest."""
    sizes = [f.stat().st_size for f in files]
    total = sum(sizes)
    start, end = total * shard // shards, total * (shard + 1) // shards
    base = 0
    for f, size in zip(files, sizes, strict=True):
        lo, hi = max(start - base, 0), min(end - base, size)  # the range in this file's offsets
        base += size
        if lo >= hi:
            continue
        with f.open("rb") as fh:
            if lo:
                fh.seek(lo - 1)
                fh.readline()  # the line that holds byte lo - 1 is the shard before's
            offset = fh.tell()
            while offset < hi:
                raw = fh.readline()
                if not raw:
                    break
                try:
                    yield f, offset, raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise BadInput(f"{place(f, offset)}: not UTF-8") from None
                offset += len(raw)


def place(f: Path, offset: int) -> str:
    """``name:line`` of the line at byte ``offset`` of ``f``, for an error only (it reads the file
    up to there to count the lines)."""
    lines, left = 1, offset
    with f.open("rb") as fh:
        while left > 0 and (block := fh.read(min(left, 1 << 20))):
            lines += block.count(b"\n")
            left -= len(block)
    return f"{f.name}:{lines}"


def any_sample(files: list[Path]) -> bool:
    """Any line of the inputs not blank (read only until the first one)."""
    for f in files:
        with f.open("rb") as fh:
            while block := fh.read(1 << 20):
                if block.strip():
                    return True
    return False


def chunks(files: list[Path], shard: int, shards: int, chunk_size: int) -> Iterator[tuple[int, list[Row]]]:
    """(chunk number, rows) of the shard's lines in input order, blank lines skipped; lines are
    parsed only where run."""
    number, rows = 0, []
    for row in shard_lines(files, shard, shards):
        if not row[2].strip():
            continue
        rows.append(row)
        if len(rows) == chunk_size:
            yield number, rows
            number, rows = number + 1, []
    if rows:
        yield number, rows


def parse(row: Row, arrays: bool = True) -> tuple[Any, Any]:
    """(id or None, input) of one line; ``arrays``: a bare line must be a JSON array (where no
    preprocess() of yours reads the inputs; with one, any JSON value is its to read)."""
    f, offset, line = row
    try:
        value = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadInput(f"{place(f, offset)}: not JSON ({e.msg})") from None
    if isinstance(value, dict):
        if "input" not in value:
            raise BadInput(f"{place(f, offset)}: an object needs an 'input' field")
        return value.get("id"), value["input"]
    if arrays and not isinstance(value, list):
        raise BadInput(f"{place(f, offset)}: expected a JSON array or an object with 'input'")
    return None, value


def chunk_path(out: Path, shard: int, number: int) -> Path:
    return out / f"chunk-{shard:05d}-{number:08d}.jsonl"


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


def check_state(out: Path, chunk_size: int, shards: int) -> None:
    """The chunk size and the shard count the outputs in ``out`` were cut at must be this run's."""
    state = out / STATE_FILE
    if state.exists():
        before = json.loads(state.read_text(encoding="utf-8"))
        if before.get("chunk_size") != chunk_size:
            raise BadInput(
                f"{out} holds chunks of {before.get('chunk_size')} samples, this run cuts {chunk_size}: "
                f"run with --chunk-size {before.get('chunk_size')}, or give another --output"
            )
        if before.get("shards") != shards:
            raise BadInput(
                f"{out} holds the chunks of {before.get('shards')} shards, this run cuts the inputs into "
                f"{shards}: run with --shards {before.get('shards')}, or give another --output"
            )
        return
    write_atomic(state, json.dumps({"chunk_size": chunk_size, "shards": shards}) + "\n")


def fingerprint(rows: list[Row]) -> str:
    """SHA-256 of a chunk's input lines (blank lines left out, as the chunk leaves them)."""
    digest = hashlib.sha256()
    for _, _, line in rows:
        digest.update(line.rstrip("\r\n").encode("utf-8") + b"\n")
    return digest.hexdigest()


def check_written(out: Path, path: Path, rows: list[Row]) -> None:
    """``path``, a chunk already written, must be of these inputs (its fingerprint in INPUTS_DIR)."""
    mark = out / INPUTS_DIR / f"{path.stem}.sha256"
    said = mark.read_text(encoding="utf-8").strip() if mark.exists() else None
    if said != fingerprint(rows):
        raise BadInput(
            f"{out / path.name} was written from other inputs than these (other lines, or lines "
            f"added or removed since): empty {out}, or give another --output, to run these"
        )


def write_chunk(out: Path, path: Path, rows: list[Row], text: str) -> None:
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


def user_preprocess() -> Callable[[list[Any]], Any] | None:
    """``preprocess(inputs)`` of your model's module (MODEL_ENTRY_POINT in train.py), where it has
    one: what turns a batch's inputs as read (file paths, text) into the model's input."""
    if not train.MODEL_ENTRY_POINT:
        return None
    hook = getattr(importlib.import_module(train.MODEL_ENTRY_POINT.partition(":")[0]), "preprocess", None)
    return hook if callable(hook) else None


def model_input(
    values: list[Any], preprocess: Callable[[list[Any]], Any] | None, device: torch.device
) -> Any:
    """One batch's input on ``device``: ``preprocess(values)`` where given (a tensor, or a dict of
    tensors), else the values as one tensor."""
    if preprocess is None:
        return torch.tensor(values, device=device)
    x = preprocess(values)
    if isinstance(x, dict):
        return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in x.items()}
    return x.to(device)


def run_chunk(
    model: torch.nn.Module,
    rows: list[Row],
    args: argparse.Namespace,
    device: torch.device,
    preprocess: Callable[[list[Any]], Any] | None = None,
) -> str:
    """The output lines of one chunk, each named by its line's file and byte offset; ``preprocess``:
    your module's (:func:`user_preprocess`), which makes each batch's input."""
    parsed = [parse(row, preprocess is None) for row in rows]
    dtype = train.autocast_dtype() if device.type == "cuda" else None
    lines = []
    for b in range(0, len(parsed), args.batch_size):
        batch = parsed[b : b + args.batch_size]
        try:
            x = model_input([value for _, value in batch], preprocess, device)
        except (ValueError, TypeError) as e:
            if preprocess is not None:
                raise
            where = place(rows[b][0], rows[b][1])
            raise BadInput(f"{where}: the batch from here cannot be one tensor ({e})") from None
        with torch.inference_mode(), torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
            outputs = postprocess(model(**x) if isinstance(x, dict) else model(x))
        lines_of = rows[b : b + args.batch_size]
        for (f, offset, _), (sample_id, _), output in zip(lines_of, batch, outputs, strict=True):
            row = {"file": f.name, "offset": offset, "output": output}
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
        check_state(out, args.chunk_size, args.shards)
        model = load_model(args, device)
        preprocess = user_preprocess()
        done = skipped = samples = 0
        seen = False
        for number, rows in chunks(files, args.shard, args.shards, args.chunk_size):
            seen = True
            path = chunk_path(out, args.shard, number)
            if path.exists():
                check_written(out, path, rows)
                skipped += 1
                continue
            write_chunk(out, path, rows, run_chunk(model, rows, args, device, preprocess))
            done += 1
            samples += len(rows)
            print(f"{tag} wrote {path.name} ({len(rows)} samples)", flush=True)
        # an upstream step that wrote nothing is not a run's work done; a shard whose part holds
        # none (more shards than lines) is
        if not seen and not any_sample(files):
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
