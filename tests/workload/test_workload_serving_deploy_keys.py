"""A serving workload may carry the deployment settings that `gpuplan deploy` reads."""

from __future__ import annotations

import pytest

from gpuplan.errors import WorkloadError
from gpuplan.workload import Workload

BASE = {
    "name": "svc",
    "task": "infer",
    "model": {"preset": "gpt2"},
    "inputs": {"batch_size": 4, "seq_len": 256},
    "precision": "bf16",
}


def test_deploy_settings_are_accepted_in_the_serving_block() -> None:
    serving = {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64}
    w = Workload.from_dict(
        {**BASE, "serving": {**serving, "share_gpu": True, "gpu_utilization_target": 70, "max_replicas": 4}}
    )
    assert w.serving is not None
    assert (w.serving.share_gpu, w.serving.gpu_utilization_target, w.serving.max_replicas) == (True, 70, 4)


def test_a_utilisation_target_above_100_percent_is_one_line_error() -> None:
    serving = {"requests_per_s": 2, "prompt_tokens": 128, "output_tokens": 64, "gpu_utilization_target": 180}
    with pytest.raises(WorkloadError, match=r"serving\.gpu_utilization_target") as e:
        Workload.from_dict({**BASE, "serving": serving})
    assert "\n" not in str(e.value)
