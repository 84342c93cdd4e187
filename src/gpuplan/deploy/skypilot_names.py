"""SkyPilot's name of a GPU on the cloud that runs it (``resources.accelerators``).

SkyPilot matches the name against its catalog of that cloud, and the clouds name one GPU differently:
the RTX A6000 is ``A6000`` in Lambda's and Shadeform's catalogs and ``RTXA6000`` in Cudo's, Vast.ai's
and Seeweb's; Cudo's H100 SXM is ``H100-SXM``. ``data/skypilot_accelerators.csv`` holds, for every
offer gpuplan ships from SkyPilot's catalog, the ``AcceleratorName`` of the catalog line it was
priced from (written by ``tools/build_snapshot.py``, each row with its line). Where the provider's
lines do not name the GPU, or no provider is named, the hardware table's ``skypilot_name`` (the name
``sky.catalog.get_common_gpus()`` gives it on every cloud) is used.
"""

from __future__ import annotations

import csv
import functools
import io
from collections import Counter
from importlib import resources

from gpuplan.hardware import get_gpu

__all__ = ["catalog_names", "skypilot_accelerator"]


@functools.cache
def _rows() -> tuple[tuple[str, str, str, str], ...]:
    text = resources.files("gpuplan.deploy").joinpath("data", "skypilot_accelerators.csv").read_text("utf-8")
    return tuple(
        (r["provider"], r["instance_type"], r["gpu"], r["accelerator"])
        for r in csv.DictReader(io.StringIO(text))
    )


def catalog_names(gpu: str) -> dict[str, str]:
    """provider -> the name SkyPilot's catalog of that provider's cloud gives ``gpu`` (the name of the
    most offers where it gives several), for every provider whose shipped offers carry it."""
    counts: dict[str, Counter[str]] = {}
    for provider, _, g, name in _rows():
        if g == gpu:
            counts.setdefault(provider, Counter())[name] += 1
    return {p: min(c, key=lambda n: (-c[n], n)) for p, c in sorted(counts.items())}


def skypilot_accelerator(gpu: str, provider: str | None, instance_type: str | None) -> str | None:
    """SkyPilot's name of ``gpu`` on ``provider``'s cloud: the catalog line's of ``instance_type``
    where gpuplan's offer of it was priced from one, else the name the provider's lines give the GPU,
    else the name common to every cloud; None where none is known."""
    if provider is not None:
        for p, itype, g, name in _rows():
            if p == provider and g == gpu and instance_type is not None and itype == instance_type:
                return name
        if (named := catalog_names(gpu).get(provider)) is not None:
            return named
    return get_gpu(gpu).skypilot_name
