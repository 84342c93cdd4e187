"""``simulate share``: the services whose demand comes from a workload file they name.

A services file may come from someone else, so each ``workload:`` it names is read as
``gpuplan.workload.named`` says: inside the folder the user named, and a workload whose model is
code only with ``--allow-code``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gpuplan.errors import InputError
from gpuplan.i18n import N_

if TYPE_CHECKING:
    from gpuplan.confine import Folder
    from gpuplan.profile import Profile
    from gpuplan.simulate.inputs import ServicesFile
    from gpuplan.simulate.share import ServiceDemand
    from gpuplan.workload import Workload
    from gpuplan.workload.spec import ConstraintsSpec

__all__ = ["estimate_services"]


def estimate_services(
    db: str | None, spec: ServicesFile, services_file: Path, gpu_id: str, access: tuple[Folder, bool]
) -> tuple[dict[str, ServiceDemand], list[ConstraintsSpec]]:
    """Each service with a ``workload:``, sized by its decode estimate on ``gpu_id`` (a forward-pass or
    an image service by the replica ``plan`` sizes, :func:`_traced_calls_demand`), and the
    constraints of those workloads (the GPUs the services share are priced only where every one
    allows). ``access``: the folder the workload files must lie in, and whether their model code may
    run (``--allow-code``)."""
    todo = [(i, s) for i, s in enumerate(spec.services) if s.workload]
    out: dict[str, ServiceDemand] = {}
    constraints: list[ConstraintsSpec] = []
    if not todo:
        return out, constraints
    from gpuplan.cli._profiles import load_profile
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.inference import decode_estimate
    from gpuplan.perf.workload_request import engine_scheduler, serving_engine, serving_tail
    from gpuplan.simulate.inputs import demand_from_decode
    from gpuplan.workload.named import named_workload

    folder, allow_code = access
    base = services_file.resolve().parent
    for i, s in todo:
        _path, w = named_workload(
            str(s.workload), base=base, folder=folder, field=f"services[{i}].workload", allow_code=allow_code
        )
        if w.task.value != "infer":
            # Only services share GPUs here; work that takes a service's GPUs at other hours is tco's.
            raise InputError.worded(
                N_(
                    "service {name!r}: its workload (task: {task}) is not a service; only inference "
                    "services (task: infer, serving:) share GPUs here. A training or fine-tuning job that "
                    "runs on a service's GPUs at night is a `gpuplan tco` demand with shift: night beside "
                    "the service's demand with shift: day (examples/tco/README.md)"
                ),
                name=s.name,
                task=w.task.value,
            )
        if w.serving is None:
            raise InputError.worded(
                N_(
                    "service {name!r}: its workload needs serving: (requests_per_s, prompt_tokens, "
                    "output_tokens)"
                ),
                name=s.name,
            )
        if w.tensor_parallel > 1:
            raise InputError.worded(
                N_(
                    "service {name!r}: its workload spans {n} GPUs (tensor_parallel); sharing packs "
                    "services that each fit one GPU"
                ),
                name=s.name,
                n=w.tensor_parallel,
            )
        constraints.append(w.constraints)
        prof = load_profile(w, db)
        slo = s.p95_latency_ms or w.serving.p95_latency_ms
        # the workload's load unless the services file gives the service's own
        rate = w.serving.requests_per_s if s.requests_per_s is None else s.requests_per_s
        if w.serves_traced_calls:
            out[s.name] = _traced_calls_demand(s.name, w, prof, gpu_id, rate, slo)
            continue
        engine = serving_engine(w)
        dec = decode_estimate(
            prof,
            get_gpu(gpu_id),
            cuda_graphs=w.uses_cuda_graphs,
            compiled=w.compile,
            engine=engine,
            scheduler=engine_scheduler(w, get_gpu(gpu_id)),
            context_tokens=sum(w.serving.tokens),
        )
        out[s.name] = demand_from_decode(
            s.name,
            dec,
            requests_per_s=rate,
            prompt_tokens=w.serving.tokens[0],
            output_tokens=w.serving.tokens[1],
            slo_s=slo / 1000 if slo else None,
            # every target the workload states is checked (the services file gives a p95 only)
            ttft_slo_s=w.serving.ttft_p95_ms / 1000 if w.serving.ttft_p95_ms else None,
            tpot_slo_s=w.serving.tpot_p95_ms / 1000 if w.serving.tpot_p95_ms else None,
            tail=serving_tail(w),
        )
    return out, constraints


def _traced_calls_demand(
    name: str, w: Workload, prof: Profile, gpu_id: str, rate: float, slo_ms: float | None
) -> ServiceDemand:
    """A service whose request is one forward pass (a classifier's) or one image of denoiser calls,
    as ``plan`` sizes its replica on a whole ``gpu_id`` (:func:`gpuplan.api.image_replica_fit`): the
    memory one replica must have, the requests a second it carries with its batch full, and one
    request's time alone; the replica itself, which the packing queues its load on."""
    from gpuplan.api import image_replica_fit
    from gpuplan.errors import EstimateError
    from gpuplan.simulate.share import ServiceDemand

    fit = image_replica_fit(w, gpu_id, prof, replicas_per_gpu=1)
    if fit is None or not fit[0].capacity_images_per_s > 0:
        raise EstimateError.worded(
            N_(
                "service {name!r}: the estimate gives no step of its model on {gpu} "
                "(`gpuplan estimate` says why)"
            ),
            name=name,
            gpu=gpu_id,
        )
    step, memory_gib = fit
    return ServiceDemand(
        name=name,
        memory_gib=memory_gib,
        requests_per_s=rate,
        capacity_requests_per_s=step.capacity_images_per_s,
        latency_s=step.image_s,
        slo_s=slo_ms / 1000 if slo_ms else None,
        step=step,
    )
