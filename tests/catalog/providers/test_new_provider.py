"""Adding a provider is one module and one registry line: a throwaway provider, registered and
nothing else, is refreshed, listed, planned (spot included) and deployed through the real CLI."""

from __future__ import annotations

import importlib
import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.catalog import providers
from gpuplan.cli import app
from stand_in_profiles import bert_large_profile

#: The whole provider, as a newcomer would write ``catalog/providers/acme.py``.
ACME = '''
"""Acme GPU Cloud: a provider that exists only in this test."""

from gpuplan.catalog.providers.base import Billing, FetchResult, ProviderFacts, SpotFacts, regions
from gpuplan.catalog.providers.common import InstanceFacts, offer, price
from gpuplan.i18n import N_

URL = "https://prices.acme.example/v1/gpu"

FACTS = ProviderFacts(
    provider="acme",
    aliases=("acme_cloud",),
    display_name="Acme GPU Cloud",
    kind="hyperscaler",
    regions=regions(("ac-west-1", "DE", "Berlin"), ("ac-east-1", "PL", "Warsaw")),
    regions_source="Acme region list (test)",
    kubernetes="AKE",
    billing=Billing(granularity_s=1, min_billing_s=60, as_of="2026-12-01", source="Acme billing page (test)"),
    spot=SpotFacts(
        name="Acme Spot",
        notice_s=30,
        published_rate=None,
        source="Acme spot docs (test)",
        rate_note=N_("Acme publishes no rate"),
    ),
    default_region="ac-west-1",
    egress_storage_note="none known (test)",
    price_sources=(URL,),
)

_A100X8 = InstanceFacts(
    gpu="A100-SXM4-80GB", gpu_count=8, vcpus=96, memory_gib=1152, network_gbps=400,
    network_kind="InfiniBand", interconnect="NVLink/NVSwitch", local_nvme_gb=0.0, source="Acme (test)",
)


class _Fetcher:
    def fetch(self, http, credentials, today):
        kw = {"as_of": today[:10], "source": URL, "fetched_at": today}
        prices = [price("on_demand", 16.0, **kw), price("spot", 6.4, **kw)]
        rows = tuple(offer("acme", r, "acme.a100x8", _A100X8, prices) for r in ("ac-west-1", "ac-east-1"))
        return FetchResult(rows=rows, sources=(URL,))


FETCHER = _Fetcher()
'''

WORKLOAD = """
name: bert-large-acme
task: finetune
model: {preset: bert-large}
inputs: {batch_size: 32, seq_len: 384}
precision: amp-fp16
optimizer: adamw
parallelism: ddp
data: {samples: 88000, epochs: 2, size_gb: 0.5, location: Acme-Cloud/ac-west-1}
constraints:
  deadline: 48h
  budget_usd: 5000
  providers: [acme]
  pricing: [on_demand, spot]
  objective: cost
"""

runner = CliRunner()


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The module on the path and its one registry line; nothing else of gpuplan is touched."""
    (tmp_path / "acme_provider.py").write_text(textwrap.dedent(ACME), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("acme_provider")
    monkeypatch.setattr(providers, "REGISTRY", providers.registry(*providers.REGISTRY.values(), module))
    monkeypatch.setenv("GPUPLAN_DB", str(tmp_path / "catalog.sqlite"))
    yield tmp_path
    monkeypatch.delitem(__import__("sys").modules, "acme_provider")


def _cli(*args: str) -> str:
    r = runner.invoke(app, list(args))
    assert r.exit_code == 0, (r.output, r.exception)
    return r.stdout


def test_a_registered_module_is_a_provider_everywhere(acme: Path) -> None:
    assert providers.PROVIDERS.cast("Acme Cloud") == "acme"  # its alias, any spelling
    # refresh reads its fetcher; offers lists what it stored
    assert "acme: ok" in _cli("catalog", "refresh", "--provider", "acme_cloud")
    offers = json.loads(_cli("offers", "--provider", "acme", "--json"))["offers"]
    assert offers and {(o["provider"], o["instance_type"]) for o in offers} == {("acme", "acme.a100x8")}

    # plan: the workload names it (and its region in data.location); spot gets its stated default
    (acme / "job.yaml").write_text(WORKLOAD, encoding="utf-8")
    (acme / "profile.json").write_text(bert_large_profile("acme-test").to_json(), encoding="utf-8")
    doc = json.loads(_cli("plan", str(acme / "job.yaml"), "--profile", str(acme / "profile.json"), "--json"))
    options = doc["options"]
    assert options and {o["provider"] for o in options} == {"acme"}
    spot = [o for o in options if o["pricing"] == "spot"]
    assert spot and all("Acme publishes no rate" in o["spot"]["rate_source"] for o in spot)
    assert {o["country"] for o in options} <= {"DE", "PL"}  # from the module's regions
    (acme / "plan.json").write_text(json.dumps(doc), encoding="utf-8")

    # deploy reads the plan file back: the provider code validates, its Kubernetes service is named
    _cli("deploy", str(acme / "plan.json"), "--target", "k8s", "--out", str(acme / "k8s"))
    manifests = "\n".join(p.read_text(encoding="utf-8") for p in sorted((acme / "k8s").rglob("*.yaml")))
    assert "node.kubernetes.io/instance-type: acme.a100x8" in manifests and "AKE" in manifests
    _cli("deploy", str(acme / "plan.json"), "--target", "torchrun", "--out", str(acme / "torchrun"))
    # SkyPilot has no such cloud (the module declares no skypilot_cloud): refused in one line
    r = runner.invoke(
        app, ["deploy", str(acme / "plan.json"), "--target", "skypilot", "--out", str(acme / "s")]
    )
    assert r.exit_code != 0 and "SkyPilot has no acme cloud (of ours it supports aws, azure, gcp, " in str(
        r.exception
    )


def test_without_its_registry_line_the_name_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    from gpuplan.errors import UnknownChoiceError

    with pytest.raises(UnknownChoiceError, match=r"unknown provider 'acme'"):
        providers.PROVIDERS.cast("acme")
    with pytest.raises(UnknownChoiceError, match=r"did you mean 'azure'"):
        providers.PROVIDERS.cast("azrue")


def test_the_registry_refuses_a_repeated_code_or_alias() -> None:
    aws = providers.REGISTRY["aws"]
    with pytest.raises(ValueError, match="two provider modules declare the code 'aws'"):
        providers.registry(aws, aws)
