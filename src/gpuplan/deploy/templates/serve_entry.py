#!/usr/bin/env python3
"""A minimal inference server, written by `gpuplan deploy` next to train.py.

It serves the model that train.py builds (build_model() in train.py: your entry point or the
stand-in), loading the newest checkpoint from CKPT_DIR when there is one. Standard library HTTP
only, one request at a time per process: a starting point that makes the Kubernetes Deployment,
Service and autoscaler runnable as they are. For production traffic put the same model behind a
batching server (TorchServe, Triton, vLLM for LLMs).

    POST /v1/predict   {"inputs": [[...], ...]}  ->  {"outputs": [...]}
    GET  /healthz      200 once the model is loaded (readiness probe)

Where CUDA sees no GPU it exits at once with one line and exit status 3 (train.EXIT_NO_GPU, as
train.py does; 2 is argparse's for a bad argument); --device cpu serves on the CPU on purpose (a
dry run).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Lock

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train


def load_model(width: int, depth: int, ckpt_dir: Path, device: torch.device) -> torch.nn.Module:
    model = train.build_model(width, depth)
    paths = train.checkpoint_paths(ckpt_dir)
    if paths:
        state = torch.load(paths[-1], map_location="cpu", weights_only=False)["model"]
        model.load_state_dict(state)
    return model.to(device).eval()


def main() -> None:
    p = argparse.ArgumentParser(description=f"Serve {train.JOB_NAME} over HTTP.")
    p.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    train.add_stand_in_options(p)
    p.add_argument("--ckpt-dir", default=os.environ.get("CKPT_DIR", "checkpoints"))
    train.add_device_option(p, "serve")
    args = p.parse_args()
    # A GPU node whose container cannot see its GPUs would answer at CPU speed, billed at the
    # GPU's price: refused in one line (train.py's), before the model loads or the port opens.
    train.require_gpu(args.device, "serve.py", "serve")
    device = torch.device(args.device)
    model = load_model(args.width, args.depth, Path(args.ckpt_dir), device)
    lock = Lock()  # one forward at a time: the GPU serialises them anyway

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, code: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply(200, {"status": "ok"}) if self.path == "/healthz" else self._reply(404, {})

        def do_POST(self) -> None:
            if self.path != "/v1/predict":
                self._reply(404, {})
                return
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                x = torch.tensor(body["inputs"], device=device)
                with lock, torch.inference_mode():
                    out = model(x)
                logits = out.logits if hasattr(out, "logits") else out
                self._reply(200, {"outputs": logits.argmax(-1).tolist()})
            except (KeyError, ValueError, TypeError, RuntimeError) as e:
                self._reply(400, {"error": str(e)})

    print(f"[{train.JOB_NAME}] serving on :{args.port} ({device})", flush=True)
    ThreadingHTTPServer(("0.0.0.0", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
