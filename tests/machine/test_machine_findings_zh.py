"""The doctor's findings read in Chinese under ``zh``, and in the same English as before under ``en``."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from recorded import RECORDINGS, load_recorded

from gpuplan.i18n import use_language
from gpuplan.machine import Finding, MachineFacts, TorchFacts, diagnose

Load = Callable[[str], MachineFacts]

_CONSTRUCTED = ("a100_old_driver", "ecc_thermal", "healthy_h100", "pcie_gen3_x8", "vgpu")
#: Every NCCL/CUDA variable the nccl_env check reads, so that each of its findings is produced.
_NOISY_ENV = {
    "NCCL_P2P_DISABLE": "1",
    "NCCL_SHM_DISABLE": "1",
    "NCCL_IB_DISABLE": "1",
    "NCCL_SOCKET_IFNAME": "eth0",
    "NCCL_DEBUG": "INFO",
    "CUDA_LAUNCH_BLOCKING": "1",
    "NCCL_ALGO": "Ring",
}
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: Three English words in a row, outside `code`, 'quotes' and (parentheses): text left untranslated.
_ENGLISH_RUN = re.compile(r"\b[a-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}\b")


def _machines(load_facts: Load) -> list[MachineFacts]:
    machines = [load_facts(name) for name in _CONSTRUCTED] + [load_recorded(r.name) for r in RECORDINGS]
    laptop = dataclasses.replace(
        machines[0],
        driver=None,
        nvml_error="no NVIDIA driver found (the NVML library libnvidia-ml is not installed)",
        torch=TorchFacts(installed=True, version="2.13.0+cpu"),
    )
    no_torch = dataclasses.replace(
        laptop, torch=TorchFacts(installed=False, import_error="No module named 'torch'")
    )
    return [*machines, laptop, no_torch, *(dataclasses.replace(m, env=_NOISY_ENV) for m in machines)]


def _texts(findings: list[Finding]) -> list[str]:
    return [t for f in findings for t in (f.message, f.fix) if t]


def _prose(text: str) -> str:
    # Commands, quoted names and values the machine reported stay as they are in both languages.
    return re.sub(r"`[^`]*`|'[^']*'|\([^()]*\)|（[^（）]*）", " ", text)


def test_every_finding_of_every_fixture_machine_is_written_in_chinese(load_facts: Load) -> None:
    untranslated = []
    for facts in _machines(load_facts):
        with use_language("en"):
            english = diagnose(facts)
        with use_language("zh"):
            chinese = diagnose(facts)
        assert [f.check for f in chinese] == [f.check for f in english]
        for en, zh in zip(_texts(english), _texts(chinese), strict=True):
            if en == zh or not _CJK.search(zh) or _ENGLISH_RUN.search(_prose(zh).replace("pip install", "")):
                untranslated.append(zh)
    assert not untranslated, untranslated


def test_english_findings_are_the_default(load_facts: Load) -> None:
    facts = load_facts("healthy_h100")
    with use_language("en"):
        explicit = diagnose(facts)
    assert diagnose(facts) == explicit
    assert not any(_CJK.search(t) for t in _texts(explicit))
