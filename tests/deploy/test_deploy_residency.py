"""A launch goes nowhere the plan left out for its countries: a plan made with ``--countries CN``
(the data stays in mainland China) and edited by hand to a US region, or ``deploy --region`` outside
a workload's ``constraints.countries``, is refused in one line before anything is written; a launch
that takes data in mainland China out of it without such a constraint is written with a warning."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from deploy_helpers import FIXTURES, plan_doc

from gpuplan.cli import main
from gpuplan.deploy import LaunchSpec
from gpuplan.deploy.residency import border_warning
from gpuplan.errors import DeployError


def _cn_plan(**recommended: str) -> dict[str, object]:
    doc = plan_doc(**recommended)
    doc["constraints"] = {**(doc.get("constraints") or {}), "countries": ["CN"]}
    return doc


def test_a_plan_edited_to_a_region_its_countries_left_out_is_refused() -> None:
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(_cn_plan(provider="aws", region="us-east-1"))
    message = str(e.value)
    assert "aws/us-east-1 (country US)" in message and "outside the plan's countries (CN)" in message
    assert "\n" not in message
    # Hong Kong is outside mainland China for this
    with pytest.raises(DeployError, match="country HK"):
        LaunchSpec.from_plan(_cn_plan(provider="alibaba", region="cn-hongkong"))
    # inside them, and a plan without countries, deploy as before
    assert LaunchSpec.from_plan(_cn_plan(provider="alibaba", region="cn-beijing")).region == "cn-beijing"
    assert LaunchSpec.from_plan(plan_doc(provider="aws", region="us-east-1")).region == "us-east-1"


def _deploy(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    """``gpuplan deploy ARGS``: its exit code, and what it printed (both streams, one line)."""
    monkeypatch.setattr(sys, "argv", ["gpuplan", "deploy", *args])
    with pytest.raises(SystemExit) as e:
        main()
    out, err = capsys.readouterr()
    return (e.value.code if isinstance(e.value.code, int) else 1), " ".join((out + err).split())


def _workload(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "train.yaml"
    path.write_text((FIXTURES / "train.yaml").read_text().replace("data: {samples: 64, epochs: 1}", extra))
    return path


def _kept_in_china(tmp_path: Path, out: Path) -> list[str]:
    """``deploy``'s first arguments for a workload whose data is in Beijing and kept in China."""
    path = _workload(
        tmp_path,
        "data: {samples: 64, epochs: 1, size_gb: 2000, location: alibaba/cn-beijing}\n"
        "constraints: {countries: [China]}",
    )
    return [str(path), "-t", "torchrun", "-o", str(out), "--gpu", "A10"]


def test_deploy_region_outside_the_workloads_countries_is_refused_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    args = _kept_in_china(tmp_path, out)
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "gcp", "--region", "us-east4")
    assert code == 1, said
    assert "--region: gcp/us-east4 (country US) is outside the workload's constraints.countries (CN)" in said
    assert "gpuplan offers --countries CN" in said and "Traceback" not in said
    assert not out.exists()
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "alibaba", "--region", "cn-beijing")
    assert code == 0, said
    assert "leaves mainland China" not in said


def test_data_in_mainland_china_launched_abroad_is_warned_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _workload(tmp_path, "data: {samples: 64, epochs: 1, size_gb: 2000, location: alibaba/cn-beijing}")
    out = tmp_path / "out"
    code, said = _deploy(
        monkeypatch,
        capsys,
        str(path),
        "-t",
        "torchrun",
        "-o",
        str(out),
        "--gpu",
        "A10",
        "--provider",
        "gcp",
        "--region",
        "us-east4",
    )
    assert code == 0, said
    assert (
        "warning: the data in alibaba/cn-beijing leaves mainland China for gcp/us-east4 (country US)" in said
    )
    assert "constraints.countries: [CN]" in said and (out / "train.py").exists()
    # into mainland China, within it, and an unknown country: no such warning
    assert border_warning("alibaba", "cn-shanghai", "alibaba/cn-beijing") == ""
    assert border_warning("aws", "us-east-1", "aws/us-west-2") == ""
    assert border_warning("aws", "nowhere-9", "alibaba/cn-beijing") == ""
    assert "country HK" in border_warning("alibaba", "cn-hongkong", "alibaba/cn-beijing")


def test_deploy_provider_without_region_is_kept_to_the_workloads_countries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the launch files name no region then: the cloud could start it in any of the provider's
    out = tmp_path / "out"
    args = _kept_in_china(tmp_path, out)
    # no region of GCP's is in mainland China
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "gcp")
    assert code == 1, said
    assert "--provider gcp: none of its regions is in the workload's constraints.countries (CN)" in said
    assert "gpuplan offers --countries CN" in said and "Traceback" not in said
    assert not out.exists()
    # Alibaba has some (not Hong Kong's): name one of them
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "alibaba")
    assert code == 1, said
    assert "--provider alibaba without --region" in said and "name one with --region" in said
    assert "cn-beijing" in said and "cn-hongkong" not in said and "and 3 more" in said
    assert not out.exists()
    # in Chinese too, both lines
    code, said = _deploy(monkeypatch, capsys, "--lang", "zh", *args, "--provider", "gcp")
    assert code == 1 and "您" in said and "none of its regions" not in said, said
    code, said = _deploy(monkeypatch, capsys, "--lang", "zh", *args, "--provider", "alibaba")
    assert code == 1 and "--region" in said and "您" in said and "without --region" not in said, said
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "alibaba", "--region", "cn-beijing")
    assert code == 0, said


def test_provider_without_region_and_no_countries_deploys_as_before(tmp_path: Path) -> None:
    path = _workload(tmp_path, "data: {samples: 64, epochs: 1, size_gb: 2000, location: alibaba/cn-beijing}")
    assert LaunchSpec.from_workload(path, gpu="A10", provider="gcp").region is None


def test_a_plan_kept_to_provider_run_hosts_is_not_launched_on_a_community_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a plan made with --hosts provider, edited by hand to a machine a marketplace's host lists
    doc = plan_doc(provider="vast", region="DE", instance_type="1x-RTX_4090-32-65536")
    doc["constraints"] = {**(doc.get("constraints") or {}), "hosts": "provider"}
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(doc)
    assert "vast/DE 1x-RTX_4090-32-65536, is not on a machine its provider runs" in str(e.value)
    assert "re-run `gpuplan plan`" in str(e.value)
    # provider-run, and a plan that does not ask it: launched as before
    ok = plan_doc()
    ok["constraints"] = {**(ok.get("constraints") or {}), "hosts": "provider"}
    assert LaunchSpec.from_plan(ok).provider == "aws"
    assert LaunchSpec.from_plan(plan_doc(provider="vast", region="DE")).provider == "vast"
    # a workload that asks it: deploy --provider onto a community host is refused, nothing written
    out = tmp_path / "out"
    path = _workload(tmp_path, "data: {samples: 64, epochs: 1}\nconstraints: {hosts: provider}")
    args = [str(path), "-t", "torchrun", "-o", str(out), "--gpu", "A10"]
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "vast", "--region", "DE")
    assert code == 1 and "constraints.hosts: provider leaves out" in said and not out.exists(), said
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "aws", "--region", "us-east-1")
    assert code == 0, said


def test_the_eus_27_members_are_named_eu_in_a_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # was: "… outside the plan's countries (AT, BE, BG, HR, CY, …, SE) …; `gpuplan offers --countries AT`"
    doc = plan_doc(provider="aws", region="us-east-1")
    doc["constraints"] = {**(doc.get("constraints") or {}), "countries": ["EU"]}
    with pytest.raises(DeployError) as e:
        LaunchSpec.from_plan(doc)
    assert "outside the plan's countries (EU)" in str(e.value), str(e.value)
    out = tmp_path / "out"
    path = _workload(tmp_path, "data: {samples: 64, epochs: 1}\nconstraints: {countries: [EU, CH]}")
    args = [str(path), "-t", "torchrun", "-o", str(out), "--gpu", "A10"]
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "gcp", "--region", "us-east4")
    assert code == 1, said
    assert "outside the workload's constraints.countries (EU, CH)" in said, said
    assert "gpuplan offers --countries EU" in said
    code, said = _deploy(monkeypatch, capsys, *args, "--provider", "azure")
    assert code == 1, said
    assert "the workload's constraints.countries (EU, CH) narrow to northeurope" in said, said
    code, said = _deploy(monkeypatch, capsys, "--lang", "zh", *args, "--provider", "azure")
    assert code == 1 and "EU、CH" in said, said
