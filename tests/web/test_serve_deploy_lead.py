"""The service's deploy writes the files ``gpuplan deploy`` writes for the same plan: a service on a
schedule that serve.py runs starts its instances the start-up lead before its hours that the plan
bills, not the bound of a replica whose weights are not known (both read them with
:func:`gpuplan.api.launch_weights`)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from serve_helpers import Service

from one_line import answered

OFFICE_CHAT = """name: office-chat
task: infer
model: {preset: gpt3-1.3b}
inputs: {batch_size: 16, seq_len: 768}
precision: bf16
serving:
  requests_per_s: 2
  prompt_tokens: 512
  output_tokens: 256
  min_replicas: 0
  schedule: {hours: "09:00-18:00", days: mon-fri, time_zone: Asia/Singapore}
constraints: {providers: [gcp], regions: [asia-southeast1], gpus: [L4], max_gpus: 1, pricing: [on_demand]}
"""


def test_the_archive_of_an_office_hours_service_has_the_command_lines_lead(
    service: Service, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # GPT-3 1.3B (no Hub weights: serve.py) on one L4, 09:00-18:00: plan bills 12 min before its hours and
    # `gpuplan deploy` starts it then; the service's archive started it 40 min before (the boot and
    # the 30 min bound of weights it did not know)
    shutil.copy(
        Path(__file__).parents[2] / "examples" / "hf-config" / "config.json", tmp_path / "config.json"
    )
    (tmp_path / "svc.yaml").write_text(OFFICE_CHAT, encoding="utf-8")
    db = ["--db", service.db]
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(answered([*db, "plan", str(tmp_path / "svc.yaml"), "--json"], capsys), "utf-8")
    plan = json.loads(plan_file.read_text("utf-8"))
    assert plan["options"][0]["service_day"]["start_up_min"] == 12
    out = ["--out", str(tmp_path / "k8s")]
    answered([*db, "deploy", str(plan_file), "--target", "k8s", "--autoscaler", "keda", *out], capsys)
    cli = (tmp_path / "k8s" / "k8s" / "keda-scaledobject.yaml").read_text("utf-8")
    body = {"plan": plan, "target": "k8s", "autoscaler": "keda"}
    r = service.client.post("/api/v1/deploy", json=body, headers=service.auth("plan"))
    assert r.status_code == 200, r.text
    archive = zipfile.ZipFile(io.BytesIO(r.content))
    api = archive.read("k8s/k8s/keda-scaledobject.yaml").decode()
    assert "from 12 min before its hours" in cli and "GB of weights" in cli
    assert api == cli
