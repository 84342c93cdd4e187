"""Each node's disk is one size in the plan that prices it and the launch files that ask for it
(``gpuplan.launch_disk``): the plan had priced only the bytes stored on it (the dataset, the
checkpoints kept, e.g. 8.5 GB), while ``gpuplan deploy`` launched each node with at least 256 GB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpuplan.deploy import spec as deploy_spec
from gpuplan.launch_disk import DEFAULT_DISK_GB, disk_need_gb
from one_line import answered

EXAMPLE = Path(__file__).parents[1] / "examples" / "bert-large-squad.yaml"


def test_the_rule_adds_headroom_and_the_systems_room_in_whole_steps_at_least_the_default() -> None:
    # nothing stored: SkyPilot's default disk
    assert disk_need_gb(0.0) == DEFAULT_DISK_GB == 256
    # 167 GB × 1.15 + 64 = 256.05 GB: one step (64 GB) above the floor
    assert disk_need_gb(167.0) == 320
    # 166 GB × 1.15 + 64 = 254.9 GB: the floor holds it
    assert disk_need_gb(166.0) == 256
    # 1,234.54 GB × 1.15 + 64 = 1,483.7 GB, up to a whole 64: 1,536
    assert disk_need_gb(1234.54) == 1536
    # exactly a step: (1,536 − 64) / 1.15 = 1,280 GB stored needs 1,536, not a step more
    assert disk_need_gb(1280.0) == 1536
    # deploy keeps its names, and its launch disk is this rule's (bounded at its cap)
    assert deploy_spec.DEFAULT_DISK_GB is DEFAULT_DISK_GB
    for gb in (0.0, 167.0, 1234.54, 56_900.0):
        assert deploy_spec.launch_disk_gb(gb) == deploy_spec.weights_disk_gb(gb) == disk_need_gb(gb)


def _plan_and_deploy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size_gb: float, *storage: str
) -> tuple[dict, dict]:
    """``gpuplan plan`` of the BERT-Large example with ``size_gb`` of data, and the SkyPilot task
    ``gpuplan deploy`` writes from that plan."""
    workload = tmp_path / "w.yaml"
    workload.write_text(EXAMPLE.read_text().replace("size_gb: 0.5", f"size_gb: {size_gb}"))
    db = str(tmp_path / "c.db")
    doc = json.loads(answered(["--db", db, "plan", str(workload), "--json", *storage], capsys))
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc))
    out = tmp_path / "launch"
    answered(["--db", db, "deploy", str(plan), "-t", "skypilot", "-o", str(out)], capsys)
    return doc, yaml.safe_load((out / "task.yaml").read_text())


@pytest.mark.parametrize(("size_gb", "storage"), [(0.5, ()), (1000.0, ()), (1000.0, ("--storage", "object"))])
def test_the_plan_prices_the_disk_deploy_launches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], size_gb: float, storage: tuple[str, ...]
) -> None:
    doc, task = _plan_and_deploy(tmp_path, capsys, size_gb, *storage)
    disk = task["resources"]["disk_size"]
    assert doc["launch_disk_gb"] == disk
    if storage:
        # the dataset in a bucket: each node still boots with the default disk, priced as such
        assert doc["disk_gb"] is None and disk == DEFAULT_DISK_GB
    else:
        # the bytes stored stay where they were; the disk priced is deploy's for them
        assert doc["disk_gb"] >= size_gb and disk == disk_need_gb(doc["disk_gb"])
        # 0.5 GB + 2 checkpoints of 4.01 GB: the default disk; 1,000 GB + the same 8.02 GB × 1.15
        # + 64 GB = 1,223.2 GB, up to a whole 64: 1,280
        assert disk == (256 if size_gb < 1 else 1280)
    rec = doc["recommended"]
    disks = next(i for i in rec["cost_breakdown"]["items"] if i["per"] == "disk")
    assert disks["multiplier"] == rec["nodes"] and disks["cost_usd"] > 0
    assert f"each instance's disk is priced at the {disk:,} GB" in " ".join(doc["notes"]) or storage
