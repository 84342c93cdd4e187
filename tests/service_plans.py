"""Saved plans of engine services that tests of the launch (command line and service) share."""

from __future__ import annotations

from typing import Any


def llama1b_two_to_a_node(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` (a saved plan of an 8-GPU p4d.24xlarge, one node, on demand) made a Llama-3.2-1B
    service planned at four GPUs a replica: two replicas to a node."""
    doc["recommended"].update(gpu_count=8, nodes=1, pricing="on_demand")
    doc["workload"] = {
        "name": "s",
        "task": "infer",
        "model": {"preset": "llama-1b"},
        "inputs": {"batch_size": 1, "seq_len": 128},
        "precision": "bf16",
        "serving": {"requests_per_s": 10, "prompt_tokens": 100, "output_tokens": 20},
    }
    doc["recommended"]["service"] = {
        "requests_per_s": 10,
        "replicas": 2,
        "replica_gpus": 4,
        "tensor_parallel": 4,
        "tensor_parallel_chosen": True,
    }
    return doc
