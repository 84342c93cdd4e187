"""The 8B chat service of ``examples/llm-inference-service.yaml`` with serving fields changed, and the
traced profile the service-target tests plan it with (a 7B Llama's, so that no test traces)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from gpuplan.catalog import Store, open_store
from gpuplan.profile.model import Profile
from gpuplan.workload import Workload, load_workload

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "examples" / "llm-inference-service.yaml"
PROFILE = ROOT / "tests" / "perf" / "fixtures" / "known" / "llama7b-infer-bf16.json"


def service(**serving: object) -> Workload:
    """The example service with ``serving`` fields replaced or added."""
    d = load_workload(SERVICE).to_dict()
    return Workload.from_dict({**d, "serving": {**d["serving"], **serving}})


def llama7b_profile() -> Profile:
    return Profile.from_json(PROFILE.read_text(encoding="utf-8"))


def module_store(seeded_copy: Callable[[str], Path], name: str) -> Iterator[Store]:
    """A module's own copy of the seeded catalog, open while its tests run."""
    st = open_store(str(seeded_copy(name)))
    yield st
    st.close()
