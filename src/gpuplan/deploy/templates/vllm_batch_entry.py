#!/usr/bin/env python3
"""Batch inference on vLLM, written by `gpuplan deploy`: one pass over the inputs, then exit.

It cuts the inputs into chunks and runs vLLM's OpenAI-compatible batch runner on each chunk of its
shard (``python3 -m vllm.entrypoints.openai.run_batch -i CHUNK_IN -o CHUNK_OUT`` and the arguments
after ``--``). It needs the Python standard library only: it runs in vLLM's own image.

    python3 vllm_batch.py --input inputs/ --output outputs/ --chunk-size 2048 -- --model ID ...

Inputs (--input, or INPUT_PATH): one JSON Lines file, or a folder of them (every *.jsonl in it, read
in name order). One line is one request in the OpenAI Batch API format:
{"custom_id": "chat-1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": ...,
"messages": [{"role": "user", "content": "..."}], "max_tokens": 256}}. Blank lines are skipped.

Outputs (--output, or OUTPUT_DIR): chunk-00000000.jsonl, chunk-00000001.jsonl, ... each vLLM's
output for one chunk, a line per request: {"id": ..., "custom_id": ..., "response": {"status_code":
..., "request_id": ..., "body": {...}}, "error": ...}. Match outputs to inputs by custom_id.

Shards: the requests are cut into chunks of --chunk-size (or CHUNK_SIZE) in input order, and chunk c
is shard c % shards's to run. The shard is --shard, else JOB_COMPLETION_INDEX (a Kubernetes Indexed
Job sets it in each pod); the count is --shards, else SHARD_COUNT.

Resuming: vLLM writes a chunk's outputs to a temporary name, renamed when vLLM has exited 0 with a
line for every request, so a chunk file that exists is complete: a shard started again (a spot node
reclaimed, a pod failed) skips the chunks already written and runs the rest. Each chunk starts the
engine afresh (it loads the weights again). OUTPUT_DIR/_batch.json keeps the chunk size the chunks
were cut at; a run with another one is refused (its chunk numbers would name other requests).

Exit status: 0 once every chunk of the shard is written; 143 after SIGTERM (the chunk being run is
dropped and run again next time); 2 for bad inputs or arguments; vLLM's own status where it fails.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

#: The batch runner, run as ``python3 -m RUNNER`` (vLLM's, in its image).
RUNNER = "vllm.entrypoints.openai.run_batch"

#: Exit status after SIGTERM: 128 + 15. The Job's podFailurePolicy does not count it as a failure:
#: the shard's pod is started again.
EXIT_PREEMPTED = 143

#: The file in the output folder that keeps the chunk size the outputs were cut at.
STATE_FILE = "_batch.json"


class BadInput(Exception):
    """An input or argument this cannot run: one line, exit status 2."""


class Preempted(Exception):
    """SIGTERM arrived."""


class RunnerFailed(Exception):
    """vLLM's batch runner failed on a chunk."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


_child: subprocess.Popen[bytes] | None = None
_stopping = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _stopping
    _stopping = True
    if _child is not None and _child.poll() is None:
        _child.terminate()  # vLLM stops; its chunk is dropped below
    else:
        raise Preempted


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    env = os.environ
    ours, runner = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    p = argparse.ArgumentParser(description="Batch inference on vLLM's batch runner, a chunk at a time.")
    p.add_argument(
        "--input", default=env.get("INPUT_PATH", "inputs"), help="a .jsonl file or a folder of them"
    )
    p.add_argument("--output", default=env.get("OUTPUT_DIR", "outputs"), help="folder of the chunk files")
    p.add_argument("--shard", type=int, default=int(env.get("JOB_COMPLETION_INDEX", "0")))
    p.add_argument("--shards", type=int, default=int(env.get("SHARD_COUNT", "1")))
    p.add_argument(
        "--chunk-size", type=int, default=int(env.get("CHUNK_SIZE", "0")), help="requests per chunk"
    )
    args = p.parse_args(ours)
    if args.shards < 1 or not 0 <= args.shard < args.shards:
        p.error(f"--shard must be from 0 to {args.shards - 1} (--shards {args.shards}); got {args.shard}")
    if args.chunk_size < 1:
        p.error("--chunk-size (or CHUNK_SIZE) must be at least 1")
    if "--model" not in runner:
        p.error("give vLLM's arguments after --: -- --model MODEL ...")
    return args, runner


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
    """(chunk number, [(where, line), ...]) in input order, blank lines skipped."""
    number, lines = 0, []
    for f in files:
        with f.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                lines.append((f"{f.name}:{i}", line.rstrip("\n") + "\n"))
                if len(lines) == chunk_size:
                    yield number, lines
                    number, lines = number + 1, []
    if lines:
        yield number, lines


def check_request(where: str, line: str) -> None:
    """One line as vLLM's batch runner reads it: a JSON object with custom_id, method, url, body."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadInput(f"{where}: not JSON ({e.msg})") from None
    if not isinstance(value, dict):
        raise BadInput(f"{where}: expected a JSON object (an OpenAI Batch API request)")
    missing = [k for k in ("custom_id", "method", "url", "body") if k not in value]
    if missing:
        raise BadInput(f"{where}: missing {', '.join(missing)} (an OpenAI Batch API request)")


def chunk_path(out: Path, number: int) -> Path:
    return out / f"chunk-{number:08d}.jsonl"


def write_atomic(path: Path, text: str) -> None:
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
                f"{out} holds chunks of {before} requests, this run cuts {chunk_size}: run with "
                f"--chunk-size {before} (CHUNK_SIZE), or give another --output"
            )
        return
    write_atomic(state, json.dumps({"chunk_size": chunk_size}) + "\n")


def run_chunk(rows: list[tuple[str, str]], path: Path, scratch: Path, runner: list[str]) -> None:
    """vLLM's batch runner on ``rows``; its output renamed to ``path`` once whole."""
    global _child
    for where, line in rows:
        check_request(where, line)
    given = scratch / f"{path.stem}.in.jsonl"
    given.write_text("".join(line for _, line in rows), encoding="utf-8")
    tmp = path.with_name(f".{path.name}.{socket.gethostname()}-{os.getpid()}.tmp")
    try:
        _child = subprocess.Popen([sys.executable, "-m", RUNNER, "-i", str(given), "-o", str(tmp), *runner])
        status = _child.wait()
        _child = None
        if _stopping:
            raise Preempted
        if status != 0:
            raise RunnerFailed(
                f"{path.name}: vLLM's batch runner exited with status {status}", status if status > 0 else 1
            )
        with tmp.open("rb") as fh:
            written = sum(1 for line in fh if line.strip())
            os.fsync(fh.fileno())
        if written != len(rows):
            raise RunnerFailed(f"{path.name}: vLLM wrote {written} lines for {len(rows)} requests", 1)
        os.replace(tmp, path)
    finally:
        _child = None
        tmp.unlink(missing_ok=True)
        given.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    args, runner = parse_args(sys.argv[1:] if argv is None else argv)
    tag = f"[shard {args.shard}/{args.shards}]"
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        files = input_files(Path(args.input))
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        check_state(out, args.chunk_size)
        done = skipped = requests = 0
        with tempfile.TemporaryDirectory(prefix="vllm-batch-") as scratch:
            for number, rows in chunks(files, args.chunk_size):
                if number % args.shards != args.shard:
                    continue
                path = chunk_path(out, number)
                if path.exists():
                    skipped += 1
                    continue
                run_chunk(rows, path, Path(scratch), runner)
                done += 1
                requests += len(rows)
                print(f"{tag} wrote {path.name} ({len(rows)} requests)", flush=True)
    except BadInput as e:
        print(f"{tag} error: {e}", file=sys.stderr, flush=True)
        return 2
    except RunnerFailed as e:
        print(f"{tag} error: {e}", file=sys.stderr, flush=True)
        return e.status
    except Preempted:
        print(f"{tag} SIGTERM: stopped; started again, it skips the chunks written", flush=True)
        return EXIT_PREEMPTED
    print(
        f"{tag} done: {done} chunks written ({requests} requests), {skipped} already written before",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
