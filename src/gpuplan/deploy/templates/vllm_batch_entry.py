#!/usr/bin/env python3
"""Batch inference on vLLM, written by `gpuplan deploy`: one pass over the inputs, then exit.

It starts vLLM's OpenAI-compatible server once, on this machine only (``python3 -m
vllm.entrypoints.openai.api_server --host 127.0.0.1 --port PORT`` and the arguments after ``--``),
sends it the requests of its shard, at most --concurrency at a time, and writes the answers a chunk
at a time. It needs the Python standard library only: it runs in vLLM's own image.

    python3 vllm_batch.py --input inputs/ --output outputs/ --chunk-size 2048 -- --model ID ...

Inputs (--input, or INPUT_PATH): one JSON Lines file, or a folder of them (every *.jsonl in it, read
in name order). One line is one request in the OpenAI Batch API format:
{"custom_id": "chat-1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": ...,
"messages": [{"role": "user", "content": "..."}], "max_tokens": 256}}; the url one of
/v1/chat/completions, /v1/completions and /v1/embeddings; a body without "model" is sent with the
model this job serves. Blank lines are skipped. Every line of the shard is checked before vLLM starts:
a bad one stops the run at once (exit 2), not hours in. A custom_id is a string, unique in all the
inputs, as the OpenAI Batch API's request input asks ("Must be unique for each request in a batch":
OpenAI, API reference, "The request input object",
https://platform.openai.com/docs/api-reference/batch/request-input) and vLLM's BatchRequestInput says
the same (vllm-project/vllm, vllm/entrypoints/openai/protocol.py, run_batch.py in later releases): the
outputs are matched to the inputs by it. A shard reads only its part of the inputs, so it checks that
the custom_ids of its own lines are unique, not those of the other shards' lines: one given twice in
a shard stops that shard before vLLM starts (exit 2), naming the lines that give it; one given in two
shards' parts is not seen by either. That costs a shard a set of its custom_ids (some 180 MB for 2 M),
let go before vLLM starts.

Outputs (--output, or OUTPUT_DIR): chunk-00000-00000000.jsonl, chunk-00000-00000001.jsonl, ...
(chunk-SHARD-N), a line per request of the chunk, in input order, as vLLM's own batch runner
writes them: {"id": ..., "custom_id": ..., "response": {"status_code": 200, "request_id": ...,
"body": {...}}, "error": null}; a request vLLM refused has its status_code and, in "error", vLLM's
error. Match outputs to inputs by custom_id.

Shards: the inputs' bytes (the files end to end, in name order) are cut into --shards ranges of
equal size, and a shard runs the lines that begin in its range: it starts at the first line that
begins at or after the range's start and reads on to the last line that begins before its end (the
way Hadoop's TextInputFormat splits a file of lines). A shard reads its part of the inputs only,
never the rest, and every line is one shard's. It cuts its requests into chunks of --chunk-size (or
CHUNK_SIZE). The shard is --shard, else JOB_COMPLETION_INDEX (a Kubernetes Indexed Job sets it in
each pod); the count is --shards, else SHARD_COUNT.

Resuming: a chunk's outputs are written to a temporary name and renamed once every request of it
has its answer, so a chunk file that exists is complete: a shard started again (a spot node
reclaimed, a pod failed) skips the chunks already written, and starts vLLM only if any is left. The
engine is started once a run, not once a chunk; the requests of the next chunk are sent while the
last ones of a chunk finish, so vLLM's batch never drains between chunks. OUTPUT_DIR/_batch.json
keeps the chunk size and the shard count the chunks were cut at; a run with another is refused (its
chunk names would name other requests). OUTPUT_DIR/_inputs/ keeps a fingerprint (SHA-256) of the input lines
each chunk was made from: a chunk written from other inputs (another night's, or the same file with
a line added or removed) is refused before vLLM starts, never kept as this run's: empty OUTPUT_DIR,
or give another --output, for new inputs.

Answers: vLLM's answer to each request is its output line, a refusal (status 4xx: a request too
long, a bad parameter) included, counted in the last line of the log. A server error (5xx: vLLM's
engine failing) is asked again, and where it persists the run stops without writing the chunk
(status 1); no answer that arrives after SIGTERM completes a chunk.

Exit status: 0 once every chunk of the shard is written; 143 after SIGTERM (the chunks not whole are
dropped and run again next time); 2 for bad inputs or arguments; vLLM's own status where its server
exits, or 1 where it does not come up in --startup-timeout seconds (STARTUP_TIMEOUT_S).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from types import FrameType
from typing import Any

#: vLLM's OpenAI-compatible server, run as ``python3 -m SERVER`` (in vLLM's image).
SERVER = "vllm.entrypoints.openai.api_server"

#: The endpoints a request may name (vLLM's server answers each; a model answers those of its task).
ENDPOINTS = ("/v1/chat/completions", "/v1/completions", "/v1/embeddings")

#: Exit status after SIGTERM: 128 + 15. The Job's podFailurePolicy does not count it as a failure:
#: the shard's pod is started again.
EXIT_PREEMPTED = 143

#: The file in the output folder that keeps the chunk size the outputs were cut at.
STATE_FILE = "_batch.json"

#: Tries of a request whose connection failed while the server still runs (a reset, not an answer),
#: or that vLLM answered with a server error (5xx).
TRIES = 3

#: The folder in the output folder that keeps each chunk's inputs' fingerprint.
INPUTS_DIR = "_inputs"


class BadInput(Exception):
    """An input or argument this cannot run: one line, exit status 2."""


class Preempted(Exception):
    """SIGTERM arrived."""


class ServerFailed(Exception):
    """vLLM's server exited, or did not come up."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


_server: subprocess.Popen[bytes] | None = None
_stopping = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _stopping
    _stopping = True
    if _server is not None and _server.poll() is None:
        _server.terminate()  # the requests in flight fail; their chunks are dropped


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    env = os.environ
    ours, engine = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    p = argparse.ArgumentParser(description="Batch inference on one vLLM server, written a chunk at a time.")
    p.add_argument(
        "--input", default=env.get("INPUT_PATH", "inputs"), help="a .jsonl file or a folder of them"
    )
    p.add_argument("--output", default=env.get("OUTPUT_DIR", "outputs"), help="folder of the chunk files")
    p.add_argument("--shard", type=int, default=int(env.get("JOB_COMPLETION_INDEX", "0")))
    p.add_argument("--shards", type=int, default=int(env.get("SHARD_COUNT", "1")))
    p.add_argument(
        "--chunk-size", type=int, default=int(env.get("CHUNK_SIZE", "0")), help="requests per chunk"
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=int(env.get("CONCURRENCY", "256")),
        help="requests in flight at once (vLLM batches them)",
    )
    p.add_argument(
        "--startup-timeout",
        type=float,
        default=float(env.get("STARTUP_TIMEOUT_S", "1800")),
        help="seconds vLLM is given to load the model and answer /health",
    )
    p.add_argument(
        "--request-timeout",
        type=float,
        default=float(env.get("REQUEST_TIMEOUT_S", "3600")),
        help="seconds one request may take before it is sent again",
    )
    args = p.parse_args(ours)
    if args.shards < 1 or not 0 <= args.shard < args.shards:
        p.error(f"--shard must be from 0 to {args.shards - 1} (--shards {args.shards}); got {args.shard}")
    if args.chunk_size < 1:
        p.error("--chunk-size (or CHUNK_SIZE) must be at least 1")
    if args.startup_timeout <= 0 or args.request_timeout <= 0:
        p.error("--startup-timeout and --request-timeout must be more than 0 seconds")
    if args.concurrency < 1:
        p.error("--concurrency (or CONCURRENCY) must be at least 1")
    if "--model" not in engine or engine.index("--model") + 1 >= len(engine):
        p.error("give vLLM's arguments after --: -- --model MODEL ...")
    for reserved in ("--host", "--port"):
        if reserved in engine:
            p.error(f"{reserved} is this script's to set (vLLM listens on 127.0.0.1 only): drop it")
    return args, engine


def served_model(engine: list[str]) -> str:
    """The model name requests must give: --served-model-name's first, else --model's."""
    name = "--served-model-name" if "--served-model-name" in engine else "--model"
    return engine[engine.index(name) + 1]


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


def request(row: Row, model: str) -> dict[str, Any]:
    """One line as an OpenAI Batch API request this job can send, its body's model filled in."""
    f, offset, line = row
    where = _Place(f, offset)
    try:
        value = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadInput(f"{where}: not JSON ({e.msg})") from None
    if not isinstance(value, dict):
        raise BadInput(f"{where}: expected a JSON object (an OpenAI Batch API request)")
    missing = [k for k in ("custom_id", "method", "url", "body") if k not in value]
    if missing:
        raise BadInput(f"{where}: missing {', '.join(missing)} (an OpenAI Batch API request)")
    if value["method"] != "POST":
        raise BadInput(f"{where}: method {value['method']!r}: only POST is sent")
    if not isinstance(value["custom_id"], str):
        raise BadInput(f"{where}: custom_id must be a string (the outputs are matched to the inputs by it)")
    if value["url"] not in ENDPOINTS:
        raise BadInput(f"{where}: url {value['url']!r} is not one of {', '.join(ENDPOINTS)}")
    body = value["body"]
    if not isinstance(body, dict):
        raise BadInput(f"{where}: body must be a JSON object")
    if body.get("stream"):
        raise BadInput(f"{where}: stream is on; a batch request takes its answer whole (drop stream)")
    given = body.setdefault("model", model)
    if given != model:
        raise BadInput(f"{where}: model {given!r}, but this job serves {model!r} (give it, or leave it out)")
    return value


class _Place:
    """Where a line is, said as ``name:line`` (:func:`place`) only where an error prints it."""

    def __init__(self, f: Path, offset: int) -> None:
        self.f, self.offset = f, offset

    def __str__(self) -> str:
        return place(self.f, self.offset)


def chunk_path(out: Path, shard: int, number: int) -> Path:
    return out / f"chunk-{shard:05d}-{number:08d}.jsonl"


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


def check_state(out: Path, chunk_size: int, shards: int) -> None:
    """The chunk size and the shard count the outputs in ``out`` were cut at must be this run's."""
    state = out / STATE_FILE
    if state.exists():
        before = json.loads(state.read_text(encoding="utf-8"))
        if before.get("chunk_size") != chunk_size:
            raise BadInput(
                f"{out} holds chunks of {before.get('chunk_size')} requests, this run cuts {chunk_size}: "
                f"run with --chunk-size {before.get('chunk_size')} (CHUNK_SIZE), or give another --output"
            )
        if before.get("shards") != shards:
            raise BadInput(
                f"{out} holds the chunks of {before.get('shards')} shards, this run cuts the inputs into "
                f"{shards}: run with --shards {before.get('shards')} (SHARD_COUNT), or give another --output"
            )
        return
    write_atomic(state, json.dumps({"chunk_size": chunk_size, "shards": shards}) + "\n")


def fingerprint(rows: list[Row]) -> str:
    """SHA-256 of a chunk's input lines (blank lines left out, as the chunk leaves them)."""
    digest = hashlib.sha256()
    for _, _, line in rows:
        digest.update(line.rstrip("\r\n").encode("utf-8") + b"\n")
    return digest.hexdigest()


#: Duplicated custom_ids an error names, each with its lines (the rest counted).
NAMED_DUPLICATES = 3


def duplicates_error(files: list[Path], args: argparse.Namespace, again: set[str], model: str) -> BadInput:
    """Where each custom_id in ``again`` is given in the shard's part (a second read of it, on this
    error only)."""
    lines: dict[str, list[str]] = {}  # in the order each is first given
    for _, rows in chunks(files, args.shard, args.shards, args.chunk_size):
        for row in rows:
            if (key := request(row, model)["custom_id"]) in again:
                lines.setdefault(key, []).append(place(row[0], row[1]))
    named = list(lines)[:NAMED_DUPLICATES]
    said = "; ".join(f"{k!r} on {', '.join(lines[k])}" for k in named)
    more = f" (and {len(again) - len(named)} more)" if len(again) > len(named) else ""
    return BadInput(
        f"custom_id given more than once: {said}{more}. Each request needs its own custom_id in all "
        "the inputs (the outputs are matched to the inputs by it): make them unique"
    )


def pending(files: list[Path], args: argparse.Namespace, out: Path, model: str) -> tuple[list[int], int]:
    """Every line of the shard checked, their custom_ids checked to be unique in the shard (it reads
    only its part of the inputs), and every chunk already written checked to be of these inputs; the
    numbers of its chunks not yet written, and of those written."""
    todo, written, seen = [], 0, False
    ids: set[str] = set()
    again: set[str] = set()
    for number, rows in chunks(files, args.shard, args.shards, args.chunk_size):
        seen = True
        for row in rows:
            key = request(row, model)["custom_id"]
            if key in ids:
                again.add(key)
            ids.add(key)
        path = chunk_path(out, args.shard, number)
        if not path.exists():
            todo.append(number)
            continue
        mark = out / INPUTS_DIR / f"{path.stem}.sha256"
        if (mark.read_text(encoding="utf-8").strip() if mark.exists() else None) != fingerprint(rows):
            raise BadInput(
                f"{path} was written from other inputs than these (other lines, or lines added or "
                f"removed since): empty {out}, or give another --output, to run these"
            )
        written += 1
    # an upstream step that wrote nothing is not a night's work done; a shard whose part holds none
    # (more shards than lines) is
    if not seen and not any_sample(files):
        raise BadInput(f"{', '.join(f.name for f in files)} hold no request (only blank lines, or empty)")
    if again:
        raise duplicates_error(files, args, again, model)
    return todo, written


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(engine: list[str], port: int, timeout_s: float) -> subprocess.Popen[bytes]:
    """vLLM's server on 127.0.0.1:port, once /health answers 200."""
    global _server
    _server = subprocess.Popen(
        [sys.executable, "-m", SERVER, *engine, "--host", "127.0.0.1", "--port", str(port)]
    )
    deadline = time.monotonic() + timeout_s
    while True:
        if _stopping:
            raise Preempted
        status = _server.poll()
        if status is not None:
            raise ServerFailed(f"vLLM's server exited with status {status} before it was ready", status or 1)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                if r.status == 200:
                    return _server
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            raise ServerFailed(
                f"vLLM's server did not answer /health in {timeout_s:g} s (--startup-timeout, "
                "STARTUP_TIMEOUT_S)",
                1,
            )
        time.sleep(1.0)


def stop_server() -> None:
    global _server
    if _server is not None and _server.poll() is None:
        _server.terminate()
        try:
            _server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            _server.kill()
            _server.wait()
    _server = None


def _json(raw: bytes) -> Any:
    """An answer's body: its JSON, else its text."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def send(port: int, req: dict[str, Any], timeout_s: float) -> tuple[str, int]:
    """One request to the server; its output line (vLLM's batch runner's format) and status."""
    data = json.dumps(req["body"]).encode()
    for attempt in range(1, TRIES + 1):
        http = urllib.request.Request(
            f"http://127.0.0.1:{port}{req['url']}",
            data=data,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        request_id = f"vllm-batch-{uuid.uuid4().hex}"
        try:
            with urllib.request.urlopen(http, timeout=timeout_s) as r:
                status, raw = r.status, r.read()
            body, error = _json(raw), None
        except urllib.error.HTTPError as e:  # vLLM answered: this request is refused, not the run
            body, status, error = None, e.code, _json(e.read())
            if status >= 500:  # the engine failed, not the request: asked again, never an answer
                if _stopping or attempt == TRIES:
                    raise ServerFailed(
                        f"vLLM answered {status} to a request {TRIES} times: {error}", 1
                    ) from None
                time.sleep(attempt)
                continue
        except OSError:  # no answer (a reset, a timeout): tried again while the server runs
            if _stopping or (_server is not None and _server.poll() is not None) or attempt == TRIES:
                raise
            time.sleep(attempt)
            continue
        line = {
            "id": f"vllm-{uuid.uuid4().hex}",
            "custom_id": req["custom_id"],
            "response": {"status_code": status, "request_id": request_id, "body": body},
            "error": error,
        }
        return json.dumps(line, ensure_ascii=False), status
    raise AssertionError("unreachable")


def run(
    files: list[Path], todo: list[int], args: argparse.Namespace, engine: list[str], tag: str
) -> tuple[int, int]:
    """Every chunk in ``todo`` through the server, each written once whole (its inputs'
    fingerprint first); the requests sent, and those vLLM refused (a status other than 200)."""
    out, model = Path(args.output), served_model(engine)
    port = free_port()
    start_server(engine, port, args.startup_timeout)
    wanted = set(todo)
    lines: dict[int, list[str | None]] = {}
    left: dict[int, int] = {}
    prints: dict[int, str] = {}
    in_flight: set[Future[tuple[str, int]]] = set()
    where_of: dict[Future[tuple[str, int]], tuple[int, int]] = {}  # a request's chunk and place in it
    sent = refused = 0

    def settle(done: set[Future[tuple[str, int]]]) -> None:
        nonlocal refused
        if _stopping:
            raise Preempted  # an answer after SIGTERM (the server going down) completes no chunk
        for future in done:
            number, index = where_of.pop(future)
            try:
                lines[number][index], status = future.result()
            except OSError as e:
                if _stopping:
                    raise Preempted from None
                ended = _server.poll() if _server is not None else None
                if ended is not None:
                    raise ServerFailed(f"vLLM's server exited with status {ended}", ended or 1) from None
                raise ServerFailed(f"vLLM's server did not answer: {e}", 1) from None
            refused += status != 200
            left[number] -= 1
            if left[number] == 0:
                path = chunk_path(out, args.shard, number)
                (out / INPUTS_DIR).mkdir(exist_ok=True)
                # the fingerprint first: a chunk file never stands without its inputs'
                write_atomic(out / INPUTS_DIR / f"{path.stem}.sha256", prints.pop(number) + "\n")
                write_atomic(path, "".join(f"{line}\n" for line in lines.pop(number)))
                del left[number]
                print(f"{tag} wrote {path.name}", flush=True)

    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        try:
            for number, rows in chunks(files, args.shard, args.shards, args.chunk_size):
                if number not in wanted:
                    continue
                lines[number], left[number] = [None] * len(rows), len(rows)
                prints[number] = fingerprint(rows)
                for index, row in enumerate(rows):
                    while len(in_flight) >= args.concurrency:
                        done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                        in_flight -= done
                        settle(done)
                    if _stopping:
                        raise Preempted
                    future = pool.submit(send, port, request(row, model), args.request_timeout)
                    where_of[future] = (number, index)
                    in_flight.add(future)
                    sent += 1
            while in_flight:
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                in_flight -= done
                settle(done)
        finally:
            if in_flight:  # stopping: the server goes first, so the requests in flight end now
                stop_server()
                pool.shutdown(wait=True, cancel_futures=True)
    return sent, refused


def main(argv: list[str] | None = None) -> int:
    args, engine = parse_args(sys.argv[1:] if argv is None else argv)
    tag = f"[shard {args.shard}/{args.shards}]"
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        files = input_files(Path(args.input))
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        check_state(out, args.chunk_size, args.shards)
        todo, written = pending(files, args, out, served_model(engine))
        sent, refused = run(files, todo, args, engine, tag) if todo else (0, 0)
    except BadInput as e:
        print(f"{tag} error: {e}", file=sys.stderr, flush=True)
        return 2
    except (ServerFailed, Preempted) as e:
        if isinstance(e, ServerFailed) and not _stopping:  # a server stopped by SIGTERM is ours
            print(f"{tag} error: {e}", file=sys.stderr, flush=True)
            return e.status
        print(f"{tag} SIGTERM: stopped; started again, it skips the chunks written", flush=True)
        return EXIT_PREEMPTED
    finally:
        stop_server()
    print(
        f"{tag} done: {len(todo)} chunks written ({sent} requests), {written} already written before"
        + (f"; vLLM refused {refused} requests (status not 200: see their error)" if refused else ""),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
