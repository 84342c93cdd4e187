"""The doctor's peer-access check: whether the visible GPUs talk GPU to GPU (P2P) or through host memory."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

from machine_fakes import LIBRARY_NOT_FOUND, FakeNvml

from gpuplan.machine import MachineFacts, Severity, TorchFacts, diagnose, probe_machine
from gpuplan.machine.gpu_checks import check_peer_access

Load = Callable[[str], MachineFacts]


def _torch_with_peers(names: list[str], peers: Callable[[int, int], bool]) -> ModuleType:
    """The real (CPU) torch module's attributes, with a CUDA of ``names`` whose peer access is ``peers``."""
    real: Any = importlib.import_module("torch")
    fake = ModuleType("torch")
    fake.__dict__.update(real.__dict__)
    fake.cuda = SimpleNamespace(  # type: ignore[attr-defined]
        is_available=lambda: True,
        device_count=lambda: len(names),
        get_device_name=lambda i: names[i],
        is_bf16_supported=lambda: True,
        nccl=SimpleNamespace(version=lambda: (2, 27, 5)),
        can_device_access_peer=peers,
    )
    return fake


def test_the_probe_asks_torch_for_every_pair() -> None:
    # GPU 2 is behind another root complex: 0↔1 peer to peer, neither reaches 2.
    torch = _torch_with_peers(["NVIDIA L40S"] * 3, lambda i, j: {i, j} == {0, 1})
    facts = probe_machine({}, nvml=FakeNvml([], init_error=LIBRARY_NOT_FOUND), import_torch=lambda: torch)
    assert facts.torch.peer_access == ((True, True, False), (True, True, False), (False, False, True))
    assert MachineFacts.from_dict(facts.to_dict()) == facts  # the matrix survives --json
    (finding,) = check_peer_access(facts)
    assert finding.severity is Severity.WARNING
    assert "0↔2, 1↔2" in finding.message and "host memory" in finding.message
    assert finding.fix is not None and "nvidia-smi topo -p2p r" in finding.fix


def test_geforce_cards_without_p2p_are_told_it_is_the_driver(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")
    names = ("NVIDIA GeForce RTX 4090",) * 8
    torch = dataclasses.replace(
        facts.torch,
        device_count=8,
        device_names=names,
        peer_access=tuple(tuple(i == j for j in range(8)) for i in range(8)),
    )
    (finding,) = check_peer_access(dataclasses.replace(facts, torch=torch))
    assert finding.severity is Severity.WARNING
    assert finding.message.count("↔") == 28  # 8·7/2 pairs
    assert finding.fix is not None and "GeForce" in finding.fix and "gpuplan estimate" in finding.fix


def test_gpus_with_p2p_are_ok(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")
    torch = dataclasses.replace(facts.torch, peer_access=((True, True), (True, True)))
    (finding,) = check_peer_access(dataclasses.replace(facts, torch=torch))
    assert finding.severity is Severity.OK and "2 GPUs" in finding.message


def test_facts_recorded_without_the_matrix_are_not_judged(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")  # recorded before gpuplan asked
    assert facts.torch.peer_access is None
    (finding,) = check_peer_access(facts)
    assert finding.severity is Severity.INFO and "could not be read" in finding.message


def test_a_machine_without_a_gpu_says_it_cannot_check() -> None:
    facts = MachineFacts(
        host="laptop",
        python_version="3.11.9",
        platform="Linux",
        torch=TorchFacts(installed=True, version="2.13.0+cpu"),
        driver=None,
        nvml_error="no NVIDIA driver found",
    )
    found = [f for f in diagnose(facts) if f.check == "peer_access"]
    assert [f.severity for f in found] == [Severity.INFO]
    assert "not checked" in found[0].message


def test_one_gpu_has_nothing_to_check(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")
    torch = dataclasses.replace(facts.torch, device_count=1, device_names=facts.torch.device_names[:1])
    assert check_peer_access(dataclasses.replace(facts, torch=torch)) == []
