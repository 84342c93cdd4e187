"""The README's dataset copy names the object-storage tool of the provider where the data is kept
(a plan on Tencent for data in Alibaba's cn-beijing had said ``coscli``, which cannot read OSS), and
says how long one node's copy takes, at the rate the plan billed it."""

from __future__ import annotations

from typing import Any

from deploy_helpers import by_path, plan_doc

from gpuplan.deploy import GenerateOptions, LaunchSpec, generate

OPTIONS = GenerateOptions(out_dir="/srv/launch")


def _doc(data: dict[str, Any], **recommended: Any) -> dict[str, Any]:
    doc = {**plan_doc(**recommended), "disk_gb": 2001.0}
    doc["workload"] = {**doc["workload"], "data": {"samples": 88000, "size_gb": 2000, **data}}
    return doc


def _readme(doc: dict[str, Any]) -> str:
    spec = LaunchSpec.from_plan(doc)
    return " ".join(by_path(generate(spec, "torchrun", OPTIONS))["README.md"].split())


def test_data_kept_in_another_provider_is_copied_with_that_providers_tool() -> None:
    readme = _readme(_doc({"location": "alibaba/cn-beijing"}, provider="tencent", region="ap-nanjing"))
    assert "`ossutil cp -r oss://YOUR-BUCKET/PREFIX/ /data/`" in readme
    assert "coscli" not in readme
    assert "The dataset is kept in alibaba/cn-beijing: the command is that provider's own tool" in readme
    assert "tencent's own storage tool cannot read it" in readme


def test_data_in_the_plans_own_provider_keeps_its_tool_and_says_nothing_more() -> None:
    readme = _readme(_doc({"location": "tencent/ap-beijing"}, provider="tencent", region="ap-nanjing"))
    assert "`coscli sync -r cos://YOUR-BUCKET/PREFIX/ /data/`" in readme
    assert "is kept in" not in readme


def test_the_readme_times_the_copy_at_the_rate_the_plan_billed() -> None:
    # 2,000 GB at the assumed 0.131 GB/s: 4.24 h; at a measured 2 GB/s: 16.7 min; at 1 GB/s: 33.3 min
    # (minutes to a tenth for both: the second had read "33 min" beside the first's "16.7 min")
    readme = _readme(_doc({"location": "aws/us-east-1"}))
    assert "One node's copy of 2,000 GB takes 4.2 h at the assumed 0.131 GB/s" in readme
    assert "give it as data.copy_gbps (or plan --copy-gbps)" in readme
    readme = _readme(_doc({"location": "aws/us-east-1", "copy_gbps": 2.0}))
    assert (
        "One node's copy of 2,000 GB takes 16.7 min at 2 GB/s, the rate you measured (data.copy_gbps)"
        in readme
    )
    # no faster than the instance's network the catalog states: 8 Gbit/s = 1 GB/s
    readme = _readme(_doc({"location": "aws/us-east-1", "copy_gbps": 2.0}, network_gbps=8.0))
    assert "takes 33.3 min at 1 GB/s, the instance's 8 Gbit/s network as the catalog states it" in readme


def test_a_small_dataset_is_said_in_enough_digits_to_read_its_size() -> None:
    # was: "One node's copy of 0 GB takes 1.5 s" for a 0.2 GB dataset
    doc = _doc({"location": "aws/us-east-1"})
    doc["workload"]["data"]["size_gb"] = 0.2
    readme = _readme(doc)
    assert "One node's copy of 0.2 GB takes 1.5 s at the assumed 0.131 GB/s" in readme, readme
