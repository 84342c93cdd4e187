"""A SkyPilot-layout row's GPU name is checked against the catalog's GPU for its instance type.

The catalog's GPU of a known instance type decides the part (SkyPilot's ``H100`` on Azure is the
NVL card for NC H100 v5 and the SXM module for ND H100 v5), but a name that is another GPU altogether
(``g5.8xlarge,H100``) or no GPU at all (``A1OG``) is a row someone got wrong: refused, not imported as
the catalog's GPU."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skypilot_rows import A10G_INFO, import_file, vms_file

from gpuplan.catalog import Store
from gpuplan.catalog.importers import parse_skypilot

FIXTURES = Path(__file__).parent / "fixtures"
AWS_HEADER = (FIXTURES / "aws_vms_v8_gpu_sample.csv").read_text().splitlines()[0]
AZURE_HEADER = (FIXTURES / "azure_vms_v6_gpu_sample.csv").read_text().splitlines()[0]
#: SkyPilot's AWS row of p3dn.24xlarge, which names its GPU "V100-32GB" (catalogs/v8/aws/vms.csv).
P3DN = (
    "p3dn.24xlarge,V100-32GB,8.0,96.0,768.0,\"{'Gpus': [{'Name': 'V100', 'Manufacturer': 'NVIDIA', "
    "'Count': 8, 'LogicalGpuCount': 8, 'GpuPartitionSize': 1.0, 'Workloads': ['ml-ai'], 'MemoryInfo': "
    "{'SizeInMiB': 32768}}], 'TotalGpuMemoryInMiB': 262144}\",33.711,9.492900,eu-west-1,euw1-az1,x86_64"
)
#: SkyPilot's Azure rows whose name is another part of the same chip than the catalog's (SXM4 and
#: SXM modules where the name table's default is the PCIe card and the NVL card).
ND_A100 = "Standard_ND96amsr_A100_v4,A100-80GB,8,96.0,1800,A100-80GB,32.77,3.6047,eastus,V2"
ND_H100 = "Standard_ND96isr_H100_v5,H100,8,96.0,1900,H100,98.32,,eastus,V2"


def _g5(gpu: str) -> str:
    return f"g5.8xlarge,{gpu},1.0,32.0,128.0,{A10G_INFO},2.448,0.9322,us-west-2,usw2-az2,x86_64"


def test_a_gpu_name_that_contradicts_the_catalogs_gpu_refuses_the_row(tmp_path: Path, db_path: Path) -> None:
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, _g5("H100")), "aws", "--json")
    assert r.exit_code == 1, r.output
    (refused,) = json.loads(r.stdout)["rejected"]
    assert refused["line"] == 2
    assert refused["reason"] == (
        "GPU 'H100' is H100-SXM in SkyPilot's aws names, but instance type g5.8xlarge has A10G in the catalog"
    ), refused["reason"]


def test_an_unknown_gpu_name_of_a_known_instance_type_is_refused_with_did_you_mean(
    tmp_path: Path, db_path: Path
) -> None:
    r = import_file(db_path, vms_file(tmp_path, AWS_HEADER, _g5("A1OG")), "aws", "--json")
    assert r.exit_code == 1, r.output
    (refused,) = json.loads(r.stdout)["rejected"]
    assert refused["reason"] == (
        "unknown GPU 'A1OG' (no mapping from SkyPilot's name to a hardware id); did you mean 'A10G'?"
    ), refused["reason"]


def test_skypilots_own_names_of_known_instance_types_still_import(store: Store, tmp_path: Path) -> None:
    aws = parse_skypilot(
        vms_file(tmp_path, AWS_HEADER, P3DN),
        "aws",
        as_of="2026-11-20",
        known_instances=store.known_instances(),
    )
    assert aws.rejected == ()
    assert {row.gpu for row in aws.rows} == {"V100-SXM2-32GB"}
    azure = parse_skypilot(
        vms_file(tmp_path, AZURE_HEADER, ND_A100, ND_H100),
        "azure",
        as_of="2026-11-20",
        known_instances=store.known_instances(),
    )
    assert azure.rejected == ()
    assert [row.gpu for row in azure.rows] == ["A100-SXM4-80GB", "H100-SXM"]


@pytest.mark.parametrize(
    ("name", "provider"), [("aws_vms_v8_gpu_sample.csv", "aws"), ("azure_vms_v6_gpu_sample.csv", "azure")]
)
def test_every_row_of_skypilots_files_still_reads(store: Store, name: str, provider: str) -> None:
    parsed = parse_skypilot(
        FIXTURES / name, provider, as_of="2026-11-20", known_instances=store.known_instances()
    )
    assert parsed.rejected == ()
