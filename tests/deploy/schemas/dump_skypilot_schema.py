"""Dump SkyPilot's task and resources JSON schemas from its wheel, without installing SkyPilot.

Used once to write ``skypilot-0.14.1-*.schema.json`` next to this file (not run by the tests).
SkyPilot 0.14.1 is a 4 MB wheel but pulls ~50 runtime dependencies (pandas, fastapi, uvicorn,
casbin …), too much for the test environment, so its schemas are read from the unpacked wheel:

    pip download --no-deps skypilot==0.14.1 && unzip skypilot-0.14.1-py3-none-any.whl -d whl
    pip install --target deps colorama greenlet cachetools aiosqlite prometheus_client psutil
    python dump_skypilot_schema.py whl deps .

``sky/utils/schemas.py`` is imported as is. Modules it reads only for enum values are stubbed with
the values copied from the same wheel (autostop modes, volume and storage types). The serve
placer / load-balancer names and the server daemon list feed only the ``service:`` and ``config:``
sections, which gpuplan never writes. ``plugins_loaded() -> True`` selects the server-side, strict
view: unknown keys are errors.
"""

from __future__ import annotations

import enum
import json
import sys
import types
from pathlib import Path
from typing import Any


def _module(name: str, **attrs: Any) -> types.ModuleType:
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


class AutostopWaitFor(enum.Enum):  # sky/skylet/autostop_lib.py
    JOBS_AND_SSH = "jobs_and_ssh"
    JOBS = "jobs"
    NONE = "none"

    @classmethod
    def supported_modes(cls) -> list[str]:
        return [m.value for m in cls]


def main() -> None:
    wheel, deps, out = (Path(a) for a in sys.argv[1:4])
    sys.path[:0] = [str(wheel), str(deps)]
    for name in ["sky", "sky.skylet", "sky.utils", "sky.setup_files", "sky.server", "sky.data", "sky.serve"]:
        _module(name, __version__="0.14.1", __path__=[str(wheel / name.replace(".", "/"))])
    _module("sky.skylet.autostop_lib", AutostopWaitFor=AutostopWaitFor)
    _module("sky.server.plugins", plugins_loaded=lambda: True)
    _module("sky.server.daemons", INTERNAL_REQUEST_DAEMONS=[])
    volume_types = {"PVC": "k8s-pvc", "HOSTPATH": "k8s-hostpath", "RUNPOD": "runpod-network-volume"}
    access = {"RWO": "ReadWriteOnce", "RWOP": "ReadWriteOncePod", "RWX": "ReadWriteMany"}
    access["ROX"] = "ReadOnlyMany"
    stores = ["S3", "GCS", "AZURE", "R2", "IBM", "OCI", "NEBIUS", "COREWEAVE", "VASTDATA", "HF", "VOLUME"]
    _module(
        "sky.utils.volume",
        VolumeType=enum.Enum("VolumeType", volume_types),
        VolumeAccessMode=enum.Enum("VolumeAccessMode", access),
    )
    _module(
        "sky.data.storage",
        StoreType=enum.Enum("StoreType", {s: s for s in stores}),
        StorageMode=enum.Enum("StorageMode", {m: m for m in ["MOUNT", "COPY", "MOUNT_CACHED"]}),
    )
    _module("sky.serve.spot_placer", SPOT_PLACERS={"dynamic_fallback": None})
    _module("sky.serve.load_balancing_policies", LB_POLICIES={"round_robin": None, "least_load": None})

    from sky.utils import schemas

    for name, schema in (("task", schemas.get_task_schema()), ("resources", schemas.get_resources_schema())):
        path = out / f"skypilot-0.14.1-{name}.schema.json"
        path.write_text(json.dumps(schema, indent=1, sort_keys=True), encoding="utf-8")


if __name__ == "__main__":
    main()
