"""Each node's launch disk holds what the plan priced on it: the dataset and the checkpoints, with
room for the OS and the image (a fixed 256 GB disk had been asked for a plan that priced 1,235 GB),
and the README says the launch copies no data."""

from __future__ import annotations

import yaml
from deploy_helpers import by_path, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate
from gpuplan.deploy.spec import DEFAULT_DISK_GB, launch_disk_gb

#: SkyPilot's task names its folder by absolute path
OPTIONS = GenerateOptions(out_dir="/srv/launch")


def test_the_launch_disk_is_sized_from_the_plans_disk() -> None:
    # 1,200 GB of dataset + 2 × 17.27 GB of checkpoints = 1,234.54 GB; × 1.15 filesystem headroom
    # + 64 GB for the OS and the image = 1,483.7 GB, up to a whole 64 GB: 1,536
    assert launch_disk_gb(1234.54) == 1536
    # a small job keeps the default disk as its floor
    assert launch_disk_gb(10.0) == DEFAULT_DISK_GB == 256
    spec = LaunchSpec.from_plan({**plan_doc(), "disk_gb": 1234.54})
    assert spec.disk_size_gb == 1536 and spec.planned_disk_gb == 1234.54
    task = yaml.safe_load(by_path(generate(spec, "skypilot", OPTIONS))["task.yaml"])
    assert task["resources"]["disk_size"] == 1536


def test_a_plan_without_its_disk_keeps_the_default_and_says_nothing_of_a_copy() -> None:
    spec = LaunchSpec.from_plan(plan_doc())
    assert spec.disk_size_gb == DEFAULT_DISK_GB and spec.planned_disk_gb is None
    assert "copy no data" not in by_path(generate(spec, "skypilot", OPTIONS))["README.md"]


def test_the_readme_says_the_launch_copies_no_data_and_where_to_put_it() -> None:
    spec = LaunchSpec.from_plan({**plan_doc(), "disk_gb": 1234.54})
    for target in ("skypilot", "k8s", "torchrun"):
        readme = " ".join(by_path(generate(spec, target, OPTIONS))["README.md"].split())
        assert "The plan priced 1,235 GB on each node's disk" in readme, target
        assert "each node needs a 1,536 GB disk" in readme, target
        assert (
            "These files copy no data: before training starts, copy your dataset onto every node's disk"
            in readme
        )
