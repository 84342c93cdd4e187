"""Dump SkyPilot's task, resources, service and storage JSON schemas from its wheel, without installing
SkyPilot.

Used once to write ``skypilot-0.14.1-*.schema.json`` next to this file (not run by the tests).
SkyPilot 0.14.1 is a 4 MB wheel but pulls ~50 runtime dependencies (pandas, fastapi, uvicorn,
casbin …), too much for the test environment, so its schemas are read from the unpacked wheel:

    pip download --no-deps skypilot==0.14.1 && unzip skypilot-0.14.1-py3-none-any.whl -d whl
    pip install --target deps colorama greenlet cachetools aiosqlite prometheus_client psutil
    python dump_skypilot_schema.py whl deps .

``sky/utils/schemas.py`` is imported as is. Modules it reads only for enum values are stubbed with
the values copied from the same wheel (autostop modes, volume and storage types). The service
schema (``get_service_schema()``, the task's ``service:`` section that ``sky serve up`` reads) lists
SkyServe's spot placers and load-balancing policies: their names are read from the wheel's own
``sky/serve/spot_placer.py`` and ``sky/serve/load_balancing_policies.py`` (each class registers
itself by its ``name=`` keyword), parsed, not imported (they pull fastapi and the clouds). The
server daemon list feeds only the ``config:`` section, which gpuplan never writes.
``plugins_loaded() -> True`` selects the server-side, strict view: unknown keys are errors.
"""

from __future__ import annotations

import ast
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


def _registered(source: Path, base: str) -> dict[str, None]:
    """The names the subclasses of ``base`` in ``source``, direct or not, register (``class X(base,
    name=...)``; ``InstanceAwareLeastLoadPolicy`` derives from ``LeastLoadPolicy``), each a string
    or a module-level string constant, in the file's order."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    constants = {
        t.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for t in node.targets
        if isinstance(t, ast.Name) and isinstance(node.value.value, str)
    }
    names: dict[str, None] = {}
    family = {base}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not any(
            isinstance(b, ast.Name) and b.id in family for b in node.bases
        ):
            continue
        family.add(node.name)
        for kw in node.keywords:
            if kw.arg != "name":
                continue
            if isinstance(kw.value, ast.Constant):
                names[kw.value.value] = None
            elif isinstance(kw.value, ast.Name):
                names[constants[kw.value.id]] = None
    if not names:
        raise SystemExit(f"no {base} subclass registers a name in {source}")
    return names


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
        FileMountType=enum.Enum(
            "FileMountType",
            {t: t for t in ["MODEL_CHECKPOINT_RO", "MODEL_CHECKPOINT_RW", "DATASET_RO", "DATASET_RW"]},
        ),
    )
    serve = wheel / "sky" / "serve"
    _module("sky.serve.spot_placer", SPOT_PLACERS=_registered(serve / "spot_placer.py", "SpotPlacer"))
    _module(
        "sky.serve.load_balancing_policies",
        LB_POLICIES=_registered(serve / "load_balancing_policies.py", "LoadBalancingPolicy"),
    )

    from sky.utils import schemas

    for name, schema in (
        ("task", schemas.get_task_schema()),
        ("resources", schemas.get_resources_schema()),
        ("service", schemas.get_service_schema()),
        ("storage", schemas.get_storage_schema()),
    ):
        path = out / f"skypilot-0.14.1-{name}.schema.json"
        path.write_text(json.dumps(schema, indent=1, sort_keys=True), encoding="utf-8")


if __name__ == "__main__":
    main()
