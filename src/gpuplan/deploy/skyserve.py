"""SkyServe: the replicas of an engine service as the plan priced them, the task's ``service:`` section.

``sky serve up task.yaml`` runs the task as a service: a load balancer in front of replicas, each one
SkyPilot cluster running the task, started, probed and scaled by SkyServe's controller. What the
section holds, as SkyPilot 0.14.1 reads it (its wheel on PyPI, ``skypilot==0.14.1``, read 2026-12-05;
the same files are on GitHub under skypilot-org/skypilot at tag v0.14.1):

- ``sky/utils/schemas.py`` ``get_service_schema()``: ``readiness_probe`` (``path``,
  ``initial_delay_seconds`` …) and ``replica_policy`` (``min_replicas``, ``max_replicas``,
  ``target_qps_per_replica``, ``upscale_delay_seconds``, ``downscale_delay_seconds`` …), no other
  keys (the tests validate the section against this schema).
- ``sky/serve/service_spec.py`` ``SkyServiceSpec``: a ``min_replicas`` different from
  ``max_replicas`` without ``target_qps_per_replica`` is refused ("To enable autoscaling, please set
  target_qps_per_replica"): SkyServe autoscales on requests per second only, so without a target the
  count is fixed. The readiness path must start with "/"; ``initial_delay_seconds`` defaults to
  1200 s (``sky/serve/constants.py DEFAULT_INITIAL_DELAY_SECONDS``).
- ``sky/serve/autoscalers.py`` ``RequestRateAutoscaler``: the requests of the last 60 s over 60 s,
  divided by ``target_qps_per_replica`` and rounded up, is the replica count, kept within
  [min_replicas, max_replicas]; it moves after the need has lasted ``upscale_delay_seconds`` (300 s
  by default) or ``downscale_delay_seconds`` (1200 s) (``sky/serve/constants.py``).
- ``sky/serve/replica_managers.py``: a replica whose probe has not passed ``initial_delay_seconds``
  after its first failed probe is torn down.
- SkyServe's own documentation, "Using Spot Instances for Serving"
  (https://docs.skypilot.co/en/latest/serving/spot-policy.html, read 2026-12-06):
  ``dynamic_ondemand_fallback: true`` starts on-demand replicas while spot ones cannot be had and
  scales them down once spot ones are back; ``base_ondemand_fallback_replicas`` keeps that many
  replicas on on-demand instances at all times (both keys of ``replica_policy`` in the schema).
- SkyServe's own documentation, "SpotHedge" (https://docs.skypilot.co/en/latest/serving/spot-hedge.html,
  read 2026-12-07; its source docs/source/serving/spot-hedge.rst in skypilot-org/skypilot):
  ``num_overprovision`` under ``replica_policy`` is "the number of overprovisioned replicas", cheap
  spot replicas run above the autoscaler's count "as a safeguard against possible preemptions"
  (``sky/serve/autoscalers.py`` ``Autoscaler.get_final_target_num_replicas``: the target plus
  ``num_overprovision``). A spot plan's spare is written there: ``min_replicas`` and
  ``max_replicas`` bound the load's replicas, and the spare runs above them at every load.
- SkyServe's own documentation, "Autoscaling" (https://docs.skypilot.co/en/stable/serving/autoscaling.html,
  read 2026-12-05): "each replica receives approximately target_qps_per_replica queries per second".

The replica's port is the task's one ``resources.ports`` (``sky/serve/serve_utils.py``), the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gpuplan.deploy.engine import (
    ENGINE_HEALTH_PATH,
    ENGINE_PORT,
    ENGINE_STARTUP_S,
    cron_lines,
    schedule_lead,
    startup_seconds,
    unpriced_share,
)
from gpuplan.deploy.spec import (
    LaunchSpec,
    ServingDeployment,
    latency_share_words,
    on_demand_cost_words,
    sizing_lengths,
    split_option,
)
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_, _, ngettext
from gpuplan.i18n.phrases import sentences
from gpuplan.perf.inference import TARGET_UTILISATION
from gpuplan.perf.replica_load import ReplicaLoad, replica_load_words

__all__ = [
    "ReplicaPolicy",
    "fallback_words",
    "kept_spare",
    "policy_words",
    "refuse_shared_gpus",
    "replica_gpus",
    "replica_policy",
    "schedule_words",
    "service_section",
]


@dataclass(frozen=True, kw_only=True)
class ReplicaPolicy:
    """How many replicas SkyServe runs, and what it scales them on."""

    min_replicas: int
    max_replicas: int
    """Equal to ``min_replicas`` where there is no target: SkyServe then holds the count."""
    target_qps_per_replica: float | None
    """Requests/s each replica is held at: the plan's capacity of one × :data:`TARGET_UTILISATION`;
    None: no capacity figure for these replicas, a fixed count (:attr:`why_fixed` says why)."""
    capacity_requests_per_s: float | None
    """The plan's capacity of one replica the target is made from; None with the target."""
    share: float = TARGET_UTILISATION
    """The share of that capacity the target is (:meth:`LaunchSpec.replica_load_share`)."""
    load: ReplicaLoad | None = None
    """Where the serving simulation's replica was built too (:attr:`LaunchSpec.engine_slots`): the
    load chosen from both capacities, which the target is; None: the plan's figure alone."""
    lengths: str | None = None
    """The request lengths the simulated replica's figure in :attr:`load` is on, in words."""
    replay: str = ""
    """With :attr:`load`: the ``gpuplan simulate autoscale`` command that replays the service at
    that load (its requests in flight a replica, as the Kubernetes target holds them)."""
    why_fixed: str = ""
    """Why the count is fixed, in the user's language; "" where SkyServe autoscales."""
    startup_s: int = ENGINE_STARTUP_S
    """Seconds a replica is given to come up (the readiness probe's initial delay): its weights read
    once on a cluster of its own (:func:`~gpuplan.deploy.engine.startup_seconds`)."""
    spare: int = 0
    """A spot service's spare replicas the plan priced against reclaims, run above the autoscaler's
    count (``num_overprovision``); :attr:`min_replicas` and :attr:`max_replicas` are then the load's
    alone. 0: none."""


def replica_gpus(spec: LaunchSpec) -> int:
    """GPUs of one replica: its tensor × pipeline split, as the Kubernetes target gives one pod."""
    return spec.tensor_parallel * spec.pipeline_parallel


def refuse_shared_gpus(spec: LaunchSpec) -> None:
    """A service whose replicas share a GPU (time-slicing or a MIG slice), refused in one line: every
    SkyServe replica is a cluster of whole GPUs of its own, so those replicas would cost a whole GPU
    each, not the share the plan priced."""
    serving = spec.serving or ServingDeployment()
    if serving.mig_profile:
        raise DeployError.worded(
            N_(
                "SkyServe gives each replica whole GPUs of its own, not a MIG slice ({profile}): deploy "
                "with --target k8s, or plan the service without serving.mig_profile"
            ),
            profile=serving.mig_profile,
        )
    if serving.share_gpu > 1:
        raise DeployError.worded(
            N_(
                "SkyServe gives each replica whole GPUs of its own, so {n} replicas cannot time-share "
                "a GPU (serving.share_gpu: {n}): deploy with --target k8s, or plan the service "
                "without share_gpu"
            ),
            n=serving.share_gpu,
        )


def _significant(x: float) -> float:
    """``x`` to 4 significant figures: a target that reads as a figure, never rounded to 0."""
    return float(f"{x:.4g}")


def replica_policy(spec: LaunchSpec) -> ReplicaPolicy:
    """The replica range of the serving block (:func:`gpuplan.deploy.spec._serving_for`: from a plan,
    the replicas it priced and room to double), with a target where the plan gives the capacity of
    one replica; else the range's minimum, fixed. A spot plan's spare is taken out of the range and
    run above it (:func:`_with_spare`)."""
    return _with_spare(_load_policy(spec), spec)


def kept_spare(spec: LaunchSpec) -> int:
    """The spare replicas the serving block's floor holds: the plan's, less any its ``max_replicas``
    leaves no room for (:func:`~gpuplan.deploy.spec.max_replicas_words` says what is left out)."""
    serving = spec.serving or ServingDeployment()
    if not spec.spot or spec.spare_replicas <= 0:
        return 0
    if spec.start_before_max is None:
        return min(spec.spare_replicas, max(0, serving.launch_replicas - 1))
    load = spec.start_before_max - spec.spare_replicas
    return max(0, min(spec.spare_replicas, serving.max_replicas - load))


def _with_spare(policy: ReplicaPolicy, spec: LaunchSpec) -> ReplicaPolicy:
    """``policy`` with a spot plan's spare as ``num_overprovision``: SkyServe runs it above its
    autoscaler's count at every load, where a floor that held it (as the Kubernetes one does) is
    gone as soon as the load rises above the floor. The range is the load's alone, so that the
    replicas run are the same: the floor and the spare, up to the serving block's ceiling."""
    spare = kept_spare(spec)
    if spare <= 0:
        return policy
    low = max(1, policy.min_replicas - spare)
    high = max(low, policy.max_replicas - spare)
    return replace(policy, min_replicas=low, max_replicas=high, spare=spare)


def _load_policy(spec: LaunchSpec) -> ReplicaPolicy:
    """:func:`replica_policy` before the spare is taken out of its range."""
    serving = spec.serving or ServingDeployment()
    capacity = spec.replica_capacity_requests_per_s
    if spec.planned_share_gpu is None:
        why = _(
            "These files come from a workload file, which says nothing of the requests per second one "
            "replica carries, and SkyServe scales on requests per second only. For autoscaling, plan "
            "the service (`gpuplan plan WORKLOAD --json > plan.json`) and deploy the plan "
            "(`gpuplan deploy plan.json --target skypilot`): the plan's estimate of one replica's "
            "capacity sets the target."
        )
    elif capacity is None:
        why = _(
            "The plan carries no estimate of the requests per second one replica carries (a plan "
            "written before gpuplan kept it, or none was made for this GPU), and SkyServe scales on "
            "requests per second only: plan the service again with `gpuplan plan` for autoscaling."
        )
    elif unpriced_share(spec):
        why = _(
            "The plan's capacity of one replica is for replicas time-sharing a GPU, not for these, "
            "and SkyServe scales on requests per second only: plan the service as deployed for "
            "autoscaling."
        )
    else:
        sizing = spec.engine_slots
        # the load the Kubernetes autoscaler's requests in flight are worked out at, chosen from the
        # plan's capacity and the simulated replica's (perf/replica_load.py): one target per service
        load = sizing.replica_load if sizing is not None else None
        return ReplicaPolicy(
            # in a schedule's hours (SkyServe runs it only while it is up): at least one
            min_replicas=max(1, serving.min_replicas),
            max_replicas=serving.max_replicas,
            target_qps_per_replica=_significant(
                load.requests_per_s if load is not None else capacity * spec.replica_load_share()
            ),
            share=load.share if load is not None else spec.replica_load_share(),
            capacity_requests_per_s=capacity,
            load=load,
            lengths=sizing_lengths(sizing) if sizing is not None else None,
            replay=_replay(spec, serving) if sizing is not None else "",
            startup_s=startup_seconds(spec.weights_gb, 1, spec.dataset_copy_gbps),
        )
    return ReplicaPolicy(
        min_replicas=serving.launch_replicas,
        max_replicas=serving.launch_replicas,
        target_qps_per_replica=None,
        capacity_requests_per_s=None,
        why_fixed=why,
        startup_s=startup_seconds(spec.weights_gb, 1, spec.dataset_copy_gbps),
    )


def _replay(spec: LaunchSpec, serving: ServingDeployment) -> str:
    """``gpuplan simulate autoscale`` on the service's GPU, its replica range, and the requests in
    flight one replica holds at the target's load (:attr:`LaunchSpec.engine_slots`)."""
    assert spec.engine_slots is not None
    per_replica = max(1.0, round(spec.engine_slots.in_flight, 1))
    return (
        f"gpuplan simulate autoscale WORKLOAD --gpu {spec.gpu or 'GPU'}{split_option(spec)} --policy "
        f"queue:min={max(1, serving.min_replicas)},max={serving.max_replicas},per_replica={per_replica:g}"
    )


def service_section(policy: ReplicaPolicy, *, spot: bool = False) -> dict[str, Any]:
    """The task's ``service:`` section: the engine's health endpoint as the readiness probe, given
    the weights' loading time, and the replica policy; on ``spot``, its on-demand fallback
    (:func:`fallback_words` says why it is as it is)."""
    replicas: dict[str, Any] = {"min_replicas": policy.min_replicas, "max_replicas": policy.max_replicas}
    if policy.target_qps_per_replica is not None:
        replicas["target_qps_per_replica"] = policy.target_qps_per_replica
    if spot:
        # Spot capacity that cannot be had (a zone's reclaimed at once, none to relaunch on) is
        # made up on on-demand replicas, stopped once spot is back: the load stays carried, at the
        # on-demand price while they run. None kept on-demand at all times: the plan priced its
        # spare on spot (fallback_words gives the price of keeping it on-demand).
        replicas["dynamic_ondemand_fallback"] = True
        replicas["base_ondemand_fallback_replicas"] = 0
    if policy.spare > 0:
        # the spare the plan priced against reclaims, on spot above the autoscaler's count (SkyPilot,
        # "SpotHedge", https://docs.skypilot.co/en/latest/serving/spot-hedge.html, read 2026-12-07)
        replicas["num_overprovision"] = policy.spare
    return {
        "readiness_probe": {
            # The engine answers 200 here once its weights are loaded; SkyServe probes the port
            # of the task's resources.ports (the engine's).
            "path": ENGINE_HEALTH_PATH,
            # SkyServe's default, 20 min, can pass before a large model's weights are down and
            # loaded: a replica still loading would be torn down and started again, without end.
            "initial_delay_seconds": policy.startup_s,
        },
        "replica_policy": replicas,
    }


def fallback_words(spec: LaunchSpec) -> str | None:
    """The README's paragraph on a spot service's on-demand fallback (:func:`service_section`): what
    it does, what an on-demand replica costs against the spot one, and why no replica is kept
    on-demand at all times, with what that would cost. None off spot."""
    if not spec.spot:
        return None
    spare = kept_spare(spec)
    keep = (
        ngettext(
            "base_ondemand_fallback_replicas is 0: the plan priced its spare ({n} replica) on spot, and "
            "num_overprovision: {n} runs it there. Set base_ondemand_fallback_replicas to {n} and "
            "num_overprovision to 0 to keep the spare on an on-demand instance at all times instead, "
            "where no reclaim takes it, at the on-demand price instead of the spot one.",
            "base_ondemand_fallback_replicas is 0: the plan priced its spare ({n} replicas) on spot, "
            "and num_overprovision: {n} runs them there. Set base_ondemand_fallback_replicas to {n} and "
            "num_overprovision to 0 to keep the spare on on-demand instances at all times instead, "
            "where no reclaim takes them, at the on-demand price instead of the spot one.",
            spare,
        ).format(n=spare)
        if spare > 0
        else _(
            "base_ondemand_fallback_replicas is 0: the plan priced every replica on spot. Set it to the "
            "replicas to keep on on-demand instances at all times, at the on-demand price."
        )
    )
    return _(
        "On-demand fallback: task.yaml's replica_policy sets dynamic_ondemand_fallback: true, so while "
        "spot replicas cannot be had (reclaimed, or no spot capacity to relaunch on) SkyServe starts "
        'on-demand replicas in their place and stops them once spot ones are back (SkyPilot, "Using '
        'Spot Instances for Serving", https://docs.skypilot.co/en/latest/serving/spot-policy.html). '
        "A replica still goes down for as long as its replacement takes to start and load the model, "
        "and reclaims of several replicas at once (a zone losing its spot capacity) are beyond the "
        "plan's model. {cost} {keep}"
    ).format(cost=on_demand_cost_words(spec), keep=keep)


def _starts(policy: ReplicaPolicy, accelerators: str) -> str:
    """The README's sentence on the replicas SkyServe starts and the range it keeps them in, and the
    spare it runs above them."""
    if policy.spare > 0:
        return ngettext(
            "SkyServe starts {total} replicas, each a cluster of its own ({accelerators}): its "
            "autoscaler keeps between {min} and {max} for the load (task.yaml's min_replicas and "
            "max_replicas), and num_overprovision: {n} runs the spare the plan priced against spot "
            "reclaims ({n} replica) above that count at every load, so that a reclaim leaves the load "
            "carried while its replacement starts: {total} to {most} replicas in all (the serving "
            "block's min_replicas and max_replicas, which default to the replicas the plan priced and "
            "twice those for the load).",
            "SkyServe starts {total} replicas, each a cluster of its own ({accelerators}): its "
            "autoscaler keeps between {min} and {max} for the load (task.yaml's min_replicas and "
            "max_replicas), and num_overprovision: {n} runs the spare the plan priced against spot "
            "reclaims ({n} replicas) above that count at every load, so that a reclaim leaves the load "
            "carried while its replacement starts: {total} to {most} replicas in all (the serving "
            "block's min_replicas and max_replicas, which default to the replicas the plan priced and "
            "twice those for the load).",
            policy.spare,
        ).format(
            min=policy.min_replicas,
            max=policy.max_replicas,
            n=policy.spare,
            total=policy.min_replicas + policy.spare,
            most=policy.max_replicas + policy.spare,
            accelerators=accelerators,
        )
    return ngettext(
        "SkyServe starts {min} replica, a cluster of its own ({accelerators}), and keeps "
        "between {min} and {max} replicas (the serving block's min_replicas and max_replicas, "
        "which default to the replicas the plan priced and twice that).",
        "SkyServe starts {min} replicas, each a cluster of its own ({accelerators}), and keeps "
        "between {min} and {max} of them (the serving block's min_replicas and max_replicas, "
        "which default to the replicas the plan priced and twice that).",
        policy.min_replicas,
    ).format(min=policy.min_replicas, max=policy.max_replicas, accelerators=accelerators)


def policy_words(policy: ReplicaPolicy, accelerators: str) -> str:
    """The README's paragraphs on the replicas: how many, what SkyServe scales them on and where the
    numbers come from, and how long a replica has to come up."""
    if policy.target_qps_per_replica is not None and policy.load is not None:
        scale = _starts(policy, accelerators)
        scale = sentences(
            scale,
            _(
                "It scales on the "
                "requests per second each replica receives, over the last minute: its target, {target} "
                "requests/s, is chosen from both of gpuplan's models of a replica: {basis}. A replica is "
                "added after the load has stayed above the target for 5 minutes, and taken away after "
                "20 minutes below it (SkyServe's default delays). `{command}` replays your traffic (add "
                "--trace FILE.csv) under the autoscaler `gpuplan deploy --target k8s` writes, on the "
                "requests in flight a replica holds at that load, not under SkyServe's own rule: "
                "gpuplan simulates no autoscaler on requests per second with those delays, and SkyServe "
                "adds and removes replicas later than that replay does."
            ).format(
                target=f"{policy.target_qps_per_replica:g}",
                basis=replica_load_words(policy.load, policy.lengths),
                command=policy.replay,
            ),
        )
        if (held := latency_share_words(policy.share)) is not None:
            scale = sentences(scale, held)
    elif policy.target_qps_per_replica is not None:
        scale = _starts(policy, accelerators)
        scale = sentences(
            scale,
            _(
                "It scales on the "
                "requests per second each replica receives, over the last minute: its target, "
                "{target} requests/s, is the plan's estimate of what one replica carries "
                "({capacity} requests/s) × {pct} %, the utilisation plans size fleets for. A replica is "
                "added after the load has stayed above the target for 5 minutes, and taken away after "
                "20 minutes below it (SkyServe's default delays)."
            ).format(
                target=f"{policy.target_qps_per_replica:g}",
                capacity=f"{policy.capacity_requests_per_s:.4g}",
                pct=f"{policy.share * 100:.0f}",
            ),
        )
        if (held := latency_share_words(policy.share)) is not None:
            scale = sentences(scale, held)
    elif policy.spare > 0:
        scale = sentences(_starts(policy, accelerators), policy.why_fixed)
    else:
        scale = ngettext(
            "SkyServe runs {n} replica, a cluster of its own ({accelerators}): a fixed count "
            "(the serving block's min_replicas), without autoscaling. {why}",
            "SkyServe runs {n} replicas, each a cluster of its own ({accelerators}): a fixed count "
            "(the serving block's min_replicas), without autoscaling. {why}",
            policy.min_replicas,
        ).format(n=policy.min_replicas, accelerators=accelerators, why=policy.why_fixed)
    probe = _(
        "A replica takes requests once `GET {path}` on port {port} answers 200. SkyServe gives it "
        "{minutes} minutes to download and load the weights before it replaces it."
    ).format(path=ENGINE_HEALTH_PATH, port=ENGINE_PORT, minutes=policy.startup_s // 60)
    return f"{scale}\n\n{probe}"


def schedule_words(spec: LaunchSpec, up: str, down: str) -> str | None:
    """The README's paragraph on a service with a schedule (``serving.schedule``): SkyPilot has no
    schedule of its own, so the crontab lines that bring it ``up`` before its hours and ``down``
    after them; None without a schedule."""
    serving = spec.serving
    if serving is None or serving.schedule is None:
        return None
    # SkyServe starts each replica as a cluster of its own: one replica's weights on each instance
    lead, how = schedule_lead(spec, 1)
    words = _(
        "The workload runs {when} only, and SkyPilot has no schedule: a service runs from `up` until "
        "`down`. Start it {lead} min before its hours (a new instance's start-up, each replica a "
        "cluster of its own; the lead is {how}) and take it down at their end, from a crontab on a machine "
        "that stays on, with SkyPilot's credentials and HF_TOKEN in its environment. cronie reads "
        "CRON_TZ; on a cron that does not, write the hours in that machine's time zone. Read the "
        "endpoint again after each `up` (`sky status` and `sky serve status --endpoint`): it may change."
    ).format(
        when=serving.schedule.window.said,
        lead=lead,
        how=how,
    )
    lines = f"CRON_TZ={serving.schedule.time_zone}" + "".join(
        f"\n{start}  cd /path/to/this/folder && {up}\n{end}  {down}"
        for start, end in cron_lines(serving.schedule.window, lead)
    )
    return f"{words}\n\n```crontab\n{lines}\n```"
