"""The notes that apply to a whole plan: the scale-out limit, the model split, the deadline risk,
data movement and storage, the unknown-fact rule and the spot assumptions, in words."""

from __future__ import annotations

from collections.abc import Sequence

from gpuplan.catalog import providers
from gpuplan.i18n import _, format_hours, format_number
from gpuplan.i18n.error_text import phrase_text
from gpuplan.i18n.phrases import item_list
from gpuplan.launch_disk import DEFAULT_DISK_GB, DISK_HEADROOM, DISK_STEP_GB, SYSTEM_DISK_GB
from gpuplan.plan.candidates import ModelSplitMisfits
from gpuplan.plan.constraints import Constraints, commitment_needed
from gpuplan.plan.input_types import JobFacts
from gpuplan.plan.load_limit import LoadLimit
from gpuplan.plan.result import Option
from gpuplan.plan.spot import SpotRate, rates_shown
from gpuplan.vocab import pricing_name

__all__ = ["batch_note", "commitment_note", "implausible_notes", "plan_notes"]


def _split_note(job: JobFacts, misfits: ModelSplitMisfits) -> str:
    """Say how many candidates the tensor × pipeline split left out, and why (empty when none)."""
    if misfits.total == 0:
        return ""
    return _(
        "tensor_parallel {tp} × pipeline_parallel {pp}: {total} candidates left out "
        "({not_multiple} whose GPU count is not a multiple of {degree}, {narrow} on instances with "
        "fewer than {tp} GPUs, where the tensor-parallel group would span nodes)"
    ).format(
        tp=job.tensor_parallel,
        pp=job.pipeline_parallel,
        degree=job.replica_gpus,
        total=f"{misfits.total:,}",
        not_multiple=f"{misfits.not_multiple:,}",
        narrow=f"{misfits.node_too_narrow:,}",
    )


def implausible_notes(options: Sequence[Option]) -> list[str]:
    """One note per GPU among ``options`` whose estimated step breaks a datasheet bound: the flags
    ``estimate`` shows for it (``perf/plausibility.py``), which a plan ranked on that step must
    show too (an A10 estimated at 0.53× an A100 where the datasheets allow 0.40× had been ranked
    first with no word of it)."""
    said: dict[str, tuple[str, ...]] = {}
    for o in options:
        if o.implausible and o.gpu not in said:
            said[o.gpu] = o.implausible
    return [
        _(
            "the options on {gpu} are timed and costed on an estimate that fails a datasheet check: "
            "{flags}; `gpuplan estimate` shows it"
        ).format(gpu=gpu, flags=_("; ").join(flags))
        for gpu, flags in said.items()
    ]


def commitment_note(constraints: Constraints, left_out: int) -> str | None:
    """The pricing models the user listed (``--pricing``, ``constraints.pricing``) that the
    commitment left out (``left_out``: the ``needs_commitment`` count), and the commitment that
    compares them; None where none was. A list of ``[on_demand, spot, reserved_1y]`` without a
    commitment had been planned on the first two with only a count in the left-out list to say so."""
    asked = constraints.pricing_forbidden
    if not asked or left_out <= 0:
        return None
    shortest, level = commitment_needed(asked)
    head = _(
        "pricing: {pricing} left out (needs_commitment {n}): {shortest} prices are compared only "
        "with --commitment {level} or longer (constraints.commitment: {level} in the workload)"
    ).format(
        pricing=item_list(pricing_name(p) for p in asked),
        n=f"{left_out:,}",
        shortest=pricing_name(shortest),
        level=level.value,
    )
    if constraints.commitment is None:
        return head + _("; no commitment was given, which accepts one month at most")
    return head + _("; the commitment given is {commitment}").format(commitment=constraints.commitment)


def _declared_without_country(constraints: Constraints) -> list[str]:
    """The providers the catalog declares without a country that a countries constraint leaves out
    (those the plan may use: all, or the ones it names)."""
    if not constraints.countries:
        return []
    return [
        p
        for p in providers.REGISTRY
        if providers.declared_provider(p)
        and providers.facts(p).declared_country is None
        and (constraints.providers is None or p in constraints.providers)
    ]


def plan_notes(
    job: JobFacts,
    ranked: list[Option],
    notes: tuple[str, ...],
    constraints: Constraints,
    rates: tuple[SpotRate, ...],
    misfits: ModelSplitMisfits,
    load_limits: tuple[LoadLimit, ...] = (),
) -> tuple[str, ...]:
    """Assumptions that apply to the whole plan, in words; ``load_limits``: the count limits that
    left a service short of its load, or a job over its deadline, on some instance types
    (``plan.load_limit``)."""
    scale_out = (
        _(
            "scale-out: at most {nodes} instances and {gpus} GPUs per service, its replicas independent "
            "servers (--max-nodes, --max-gpus)"
        )
        if job.is_service
        else _("scale-out: at most {nodes} instances and {gpus} GPUs per job (--max-nodes, --max-gpus)")
    )
    plan_notes = [
        scale_out.format(
            nodes=constraints.node_limit(service=job.is_service), gpus=constraints.total_gpu_limit
        )
    ]
    plan_notes += [phrase_text(limit.words) for limit in load_limits]
    if split := _split_note(job, misfits):
        plan_notes.append(split)
    if constraints.deadline_h is not None:
        plan_notes.append(
            _(
                "deadline risk: from the estimate's time distribution (its range is the 10th–90th "
                "percentiles), with spot interruptions on top"
            )
        )
    plan_notes += notes
    if unplaced := _declared_without_country(constraints):
        plan_notes.append(
            _(
                "countries: the offers of {providers} are left out: a provider you declared without "
                "--country is in no known country (import its prices again with --new-provider and "
                "--country)"
            ).format(providers=item_list(unplaced))
        )
    if job.data_location is None and job.dataset_gb > 0:
        plan_notes.append(
            _(
                "data.location not given: the dataset is uploaded from your site (inbound traffic is "
                "free on the seven clouds; where a provider's inbound price is not in the catalog it is "
                "priced at the highest transfer price known) and results go back over internet egress"
            )
            + _(
                "; whether the data crosses the border of mainland China (its data-export rules) is not "
                "known: give data.location"
            )
        )
    if job.egress_free_tier:
        plan_notes.append(
            _(
                "egress: the account's monthly free allowance is taken as unused (--egress-free-tier): "
                "the job's transfer starts in the first tier"
            )
        )
    elif job.dataset_gb > 0 or job.result_size_gb > 0:
        plan_notes.append(
            _(
                "egress: every GB is priced, without the monthly free allowance (it is shared with the "
                "account's other traffic; --egress-free-tier if it is unused)"
            )
        )
    plan_notes.append(_storage_note(job) + _launch_disk_words(job))
    if job.dataset_gb > 0 and any(o.nodes > 1 for o in ranked):
        words = (
            _(
                "dataset in: each node downloads its own copy, and each copy pays the transfer "
                "(data.transfer: per_node; fan_out copies it once into the region)"
            )
            if job.copies_per_node
            else _(
                "dataset in: each of an option's n nodes downloads only its 1/n (the launch's batch "
                "script reads one byte range of the inputs a shard), and the dataset pays the transfer once"
            )
            if job.reads_its_shard
            else _(
                "dataset in: one copy comes into the region and is shared by the nodes inside it "
                "(no transfer charge between instances of one zone)"
            )
        )
        plan_notes.append(words + _uplink_words(job))
    plan_notes.append(
        _(
            "unknown facts (vCPUs, RAM, network, GPU link, egress and storage prices, spot rate) are "
            "costed at their conservative bound and ranked so; each option's best case is shown beside "
            "it (an SXM instance of fewer than eight GPUs not said to have NVSwitch: a directly joined "
            "NVLink board of at least four GPUs)"
        )
    )
    if any(o.spot for o in ranked):
        by_source = {r.source: r for r in rates}
        used = [by_source[o.spot.rate_source] for o in ranked if o.spot and o.spot.rate_source in by_source]
        words = (
            _(
                "spot: a reclaimed replica is down for a restart of {minutes} min and its weights read at "
                "{gbps} GB/s (both assumptions); rates: {rates}"
            )
            if job.calendar_months is not None
            else _(
                "spot: checkpoint write {gbps} GB/s and restart {minutes} min are assumptions; rates: {rates}"
            )
        )
        plan_notes.append(
            words.format(
                gbps=f"{job.checkpoint_write_gbps:g}",
                minutes=f"{job.restart_h * 60:.0f}",
                rates=_("; ").join(rates_shown(used)),
            )
            + _recopy_words(job, ranked)
        )
    return tuple(plan_notes)


def _uplink_words(job: JobFacts) -> str:
    """How the copies of a multi-node option share the site's uplink (empty where it does not apply):
    what ``JobFacts.setup_hours`` adds to each option's set-up."""
    one = job.upload_h
    if one is None:
        return ""
    if job.reads_its_shard:
        return _(
            "; the parts share your site's uplink ({uplink} Gbit/s): the nodes start once the whole "
            "dataset is up, after {one}"
        ).format(uplink=f"{job.upload_gbps:g}", one=format_hours(one))
    if job.copies_per_node:
        return _(
            "; the copies share your site's uplink ({uplink} Gbit/s): the nodes of an option of n nodes "
            "start after n × {one}, all billed while they wait"
        ).format(uplink=f"{job.upload_gbps:g}", one=format_hours(one))
    if job.storage_kind == "block":
        return _(
            "; one copy goes up your site's uplink ({one} at {uplink} Gbit/s), then to the other nodes "
            "inside the region at {gbps} GB/s (+{copy})"
        ).format(
            one=format_hours(one),
            uplink=f"{job.upload_gbps:g}",
            gbps=f"{job.checkpoint_write_gbps:g}",
            copy=format_hours(job.dataset_copy_h),
        )
    return ""


def _recopy_words(job: JobFacts, ranked: Sequence[Option]) -> str:
    """What the spot restarts assume of the dataset's disks (empty where a job keeps no dataset on a
    disk of its own). Whether a reclaim keeps them is unknown, so each restart is costed copying the
    dataset again (``JobFacts.recopy_hours``), its conservative bound, and the disks surviving is its
    best case, as for every unknown fact. Why, said only for the plan's spot options' own providers:
    AWS, by default, terminates a reclaimed Spot Instance (AWS, "Behavior of Spot Instance
    interruptions", Amazon EC2 User Guide,
    https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/interruption-behavior.html), and the
    recovery of the SkyPilot managed job ``gpuplan deploy`` writes may launch the cluster anew (on a
    cloud SkyPilot runs: ``ProviderFacts.skypilot_cloud``). On any other provider (Alibaba, Tencent,
    …) nothing is claimed of its reclaims: the copy again is the bound of an unknown."""
    if not job.recopies_on_reclaim:
        return ""
    spot_providers = {o.provider for o in ranked if o.spot}
    why = []
    if "aws" in spot_providers:
        why.append(_("AWS terminates a reclaimed Spot Instance by default"))
    if any((m := providers.REGISTRY.get(p)) is not None and m.FACTS.skypilot_cloud for p in spot_providers):
        why.append(_("a recovered SkyPilot job may run on a new cluster"))
    if not why:
        why.append(_("whether a reclaimed instance keeps its disks is not known"))
    one = job.upload_h
    return (
        _(
            "; a reclaim is taken to lose the dataset's disks ({why}): each restart copies its node's "
            "part of the {gb} GB again (all of it, +{time}, on one instance; 1/n on each of n, as each "
            "shard reads only its own), and pays its transfer in again; best case, the disks survive"
        )
        if job.reads_its_shard
        else _(
            "; a reclaim is taken to lose the dataset's disks ({why}): each restart copies the {gb} GB "
            "again, +{time} on one instance, and pays its transfer in again; best case, the disks survive "
            "and a restart reads the checkpoint back only (each spot option's best case)"
        )
    ).format(
        why=_("; ").join(why),
        gb=format_number(job.dataset_gb),
        time=format_hours(one if one is not None else job.dataset_copy_h),
    )


def _storage_note(job: JobFacts) -> str:
    """What the storage cost holds: a job's dataset, checkpoints and any frozen base weights; a
    service's or a batch inference job's model weights (neither keeps checkpoints) and any dataset."""
    block = job.storage_kind == "block"
    if job.task == "infer":
        service = (
            _("storage: the model's weights ({gb} GB) and any dataset on a block-storage disk per instance")
            if block
            else _("storage: the model's weights ({gb} GB) and any dataset in one object-storage bucket")
        )
        return service.format(gb=f"{job.weights_gb:.1f}")
    if job.weights_gb > 0:
        # a fine-tune's frozen base: downloaded once, never in a checkpoint
        return (
            _(
                "storage: dataset + {n} checkpoints + the base model's weights ({gb} GB) on a block-storage "
                "disk per instance for the job's duration"
            )
            if block
            else _(
                "storage: dataset + {n} checkpoints + the base model's weights ({gb} GB) in one "
                "object-storage bucket for the job's duration"
            )
        ).format(n=job.checkpoints_kept, gb=f"{job.weights_gb:.1f}")
    return (
        _("storage: dataset + {n} checkpoints on a block-storage disk per instance for the job's duration")
        if block
        else _("storage: dataset + {n} checkpoints in one object-storage bucket for the job's duration")
    ).format(n=job.checkpoints_kept)


def _launch_disk_words(job: JobFacts) -> str:
    """The disk each instance is priced at, in words: the one ``gpuplan deploy`` launches it with
    (``JobFacts.launch_disk_gb``, by :func:`gpuplan.launch_disk.disk_need_gb`), not the bytes it
    holds; in a bucket's plan, the disk each instance still boots with, beside the bucket."""
    rule = {
        "headroom": f"{DISK_HEADROOM:.0%}",
        "system": SYSTEM_DISK_GB,
        "step": DISK_STEP_GB,
        "floor": DEFAULT_DISK_GB,
        "disk": format_number(job.launch_disk_gb),
    }
    if job.storage_kind == "block":
        return _(
            "; each instance's disk is priced at the {disk} GB gpuplan deploy launches it with: the "
            "{gb} GB it holds with {headroom} headroom and {system} GB for the OS and the image, in "
            "whole {step} GB steps, at least {floor} GB"
        ).format(gb=format_number(job.stored_gb_per_copy), **rule)
    if job.task == "infer":
        return _(
            "; each instance also boots with a {disk} GB disk, priced as block storage: the {gb} GB of "
            "weights its engine downloads with {headroom} headroom and {system} GB for the OS and the "
            "image, in whole {step} GB steps, at least {floor} GB, as gpuplan deploy launches it"
        ).format(gb=f"{job.weights_gb:.1f}", **rule)
    return _(
        "; each instance also boots with a {disk} GB disk, priced as block storage: the default launch "
        "disk gpuplan deploy asks for"
    ).format(**rule)


def batch_note(job: JobFacts, recommended: Option, others: Sequence[Option]) -> str:
    """The recommended option's global batch (``batch_size`` is per GPU), and, where ``others`` run
    on other GPU counts, that theirs differ and how to hold one; "" for a job that is not training.
    A pretraining's recipe (learning rate, warm-up) is tuned to one global batch, so 8 and 64 GPUs at
    the same ``batch_size`` are two different runs."""
    if job.batch_size <= 0 or job.calendar_months is not None:
        return ""
    per_step = job.batch_size * job.gradient_accumulation
    total = per_step * recommended.gpu_count
    tokens = _(" ({tokens} tokens)").format(tokens=f"{total * job.seq_len:,}") if job.seq_len else ""
    head = _(
        "global batch of the recommended option: {batch} per GPU × {gpus} GPUs × gradient_accumulation "
        "{accumulation} = {total} samples per optimizer step{tokens}"
    ).format(
        batch=job.batch_size,
        gpus=recommended.gpu_count,
        accumulation=job.gradient_accumulation,
        total=f"{total:,}",
        tokens=tokens,
    )
    counts = sorted({o.gpu_count for o in others} - {recommended.gpu_count})
    if not counts:
        return head
    theirs = _(", ").join(_("{gpus} GPUs: {total}").format(gpus=n, total=f"{per_step * n:,}") for n in counts)
    ways = _("; ").join(_holds(total, counts, job.batch_size))
    return _(
        "{head}; batch_size is per GPU, so the options on other GPU counts train with other global "
        "batches ({theirs}), a different recipe for a pretraining (learning rate, warm-up): to train "
        "with {total} on any count, keep batch_size × GPUs × gradient_accumulation = {total} ({ways})"
    ).format(head=head, theirs=theirs, total=f"{total:,}", ways=ways)


def _holds(total: int, counts: Sequence[int], batch: int) -> list[str]:
    """How each of ``counts`` GPUs trains with a global batch of ``total`` (:func:`_hold`); the
    counts of which ``total`` is no multiple said once, together: "none, 4 is not a multiple of 6"
    had been repeated for each of eight counts."""
    split = [n for n in counts if not total % n]
    whole = [_hold(total, n, batch) for n in split]
    unsplit = [n for n in counts if total % n]
    if len(unsplit) < 2:
        return [_hold(total, n, batch) for n in counts]
    return [
        *whole,
        _("{counts} GPUs: none, {total} is not a multiple of any of them").format(
            counts=item_list(unsplit), total=f"{total:,}"
        ),
    ]


def _hold(total: int, gpus: int, batch: int) -> str:
    """How ``gpus`` GPUs train with a global batch of ``total``: the per-GPU batch and accumulation,
    the batch no larger than ``batch`` (what was estimated to fit); or that no whole split exists.
    "GPUs × gradient_accumulation = 2" had been the advice for 8 GPUs, which no accumulation meets."""
    count = (_("{count} GPU") if gpus == 1 else _("{count} GPUs")).format(count=gpus)
    if total % gpus:
        return _("{gpus}: none, {total} is not a multiple of {n}").format(
            gpus=count, total=f"{total:,}", n=gpus
        )
    each = total // gpus
    accumulation = max(1, -(-each // batch))
    while each % accumulation:
        accumulation += 1
    return _("{gpus}: batch_size {batch} × gradient_accumulation {accumulation}").format(
        gpus=count, batch=each // accumulation, accumulation=accumulation
    )
