"""What train.py's checkpoints ask of the machine: the disk that holds them, and the time a stopped
job needs to save one. Sized from the plan's checkpoint (its size and write time), so that every
target says the same figures."""

from __future__ import annotations

import math

from gpuplan.catalog.providers import PROVIDERS, facts, provider_runs
from gpuplan.deploy.spec import DISK_HEADROOM, LaunchSpec
from gpuplan.i18n import format_hours
from gpuplan.i18n.messages import _
from gpuplan.i18n.numbers import format_gb, format_minutes
from gpuplan.i18n.phrases import sentences
from gpuplan.units import ASSUMED_DISK_GBPS, CHECKPOINTS_KEPT
from gpuplan.vocab import Precision

__all__ = [
    "CHECKPOINTS_ON_DISK",
    "UNKNOWN_DISK_GIB",
    "checkpoint_disk_gib",
    "checkpoint_disk_note",
    "checkpoint_interval_min",
    "copy_source",
    "copy_time_words",
    "dataset_copy_commands",
    "dataset_copy_note",
    "skypilot_dataset_note",
    "skypilot_dataset_source",
    "spot_notice_note",
    "stop_grace_comment",
    "stop_grace_note",
    "stop_grace_s",
]

#: Checkpoints in the checkpoint folder at the most, the one being written included, where the
#: workload does not say (``checkpoint.keep``; ``LaunchSpec.keep_checkpoints``): train.py's
#: ``KEEP_CHECKPOINTS`` (it deletes the oldest down to ``keep - 1`` before each write), and what the
#: plan prices as stored (``gpuplan.plan.input_types.JobFacts.checkpoints_kept``): one figure for both.
CHECKPOINTS_ON_DISK = CHECKPOINTS_KEPT


#: The smallest checkpoint volume written, GiB: a small model's checkpoints and the filesystem's own.
MIN_DISK_GIB = 20

#: The checkpoint volume where the checkpoint's size is not known (a workload file, or a plan
#: written before it kept the size): room for two checkpoints of a model that fits one node.
UNKNOWN_DISK_GIB = 200

#: The least time a stopped job is given to save, seconds (where no plan says how long a write takes).
MIN_GRACE_S = 120

#: Time before the save starts, s: train.py saves at the next step, after the one in flight, and
#: gathers the whole state to rank 0 first. ASSUMPTION: a minute.
STEP_AND_GATHER_S = 60

#: The plan's write time is at its assumed bandwidth (``JobFacts.checkpoint_write_gbps``: the AWS EBS
#: gp3 baseline, 125 MiB/s, "Amazon EBS volume types", the slowest volume gpuplan assumes). Twice
#: the plan's time: a busier disk still finishes, and a stopped pod or container that finishes
#: sooner is not kept waiting.
WRITE_MARGIN = 2.0

_GIB = 2**30


def checkpoint_disk_gib(spec: LaunchSpec) -> int:
    """The checkpoint volume, GiB: ``spec.keep_checkpoints`` of the plan's checkpoints plus
    :data:`DISK_HEADROOM`, up to a multiple of 10, at least :data:`MIN_DISK_GIB`;
    :data:`UNKNOWN_DISK_GIB` where the checkpoint's size is not known."""
    if spec.checkpoint_gb is None:
        return UNKNOWN_DISK_GIB
    need = spec.keep_checkpoints * spec.checkpoint_gb * 1e9 * (1 + DISK_HEADROOM) / _GIB
    return max(MIN_DISK_GIB, 10 * math.ceil(need / 10))


def checkpoint_disk_note(spec: LaunchSpec) -> str:
    """How big the checkpoint folder's disk must be, in words (a README sentence, or a manifest's
    comment): the plan's checkpoint, how many are on disk at once, and the size with headroom."""
    if spec.checkpoint_gb is None:
        return _(
            "The checkpoint folder's disk must hold {n} checkpoints at once (train.py deletes the oldest "
            "before it writes the next); their size is not known without a plan (deploy the plan file "
            "to have it said)."
        ).format(n=spec.keep_checkpoints)
    return _(
        "One checkpoint is {gb} GB ({whose}: {contents}), and "
        "the checkpoint folder holds {n} at once at the most (train.py deletes the oldest before it "
        "writes the next): its disk needs {need} GB free, {gib} GiB with room for the filesystem."
    ).format(
        whose=_sized_by(spec),
        contents=Precision(spec.precision).checkpoint_contents,
        gb=f"{spec.checkpoint_gb:.2f}",
        n=spec.keep_checkpoints,
        need=f"{spec.keep_checkpoints * spec.checkpoint_gb:.0f}",
        gib=checkpoint_disk_gib(spec),
    )


#: What :func:`host_disk_note` copies the checkpoint folder with: ``aws s3 sync`` (AWS CLI
#: reference, https://docs.aws.amazon.com/cli/latest/reference/s3/sync.html: ``--exclude`` takes a
#: pattern, ``--delete`` removes what the source no longer holds). train.py writes each checkpoint
#: as ``step_*.tmp`` and renames it whole, so a copy leaves the ``.tmp`` out and never holds half of
#: one. ``rclone sync`` (https://rclone.org/commands/rclone_sync/) does the same for any other store.
_SYNC_UP = "aws s3 sync {folder} s3://YOUR-BUCKET/PREFIX --delete --exclude '*.tmp' --exclude '*.tmp/*'"
_SYNC_DOWN = "aws s3 sync s3://YOUR-BUCKET/PREFIX {folder}"


def host_disk_note(spec: LaunchSpec, folder: str) -> str:
    """Where the plan's option is not on a machine its provider runs (a community host, or a host of
    unknown kind: :func:`~gpuplan.catalog.providers.provider_runs`), that the checkpoints in
    ``folder`` sit on that host's own disk and go with it, the loop that copies them to a bucket every
    checkpoint interval, and how a new host resumes from them; "" for a provider-run machine or
    hardware of the user's own (no provider)."""
    if not spec.provider or provider_runs(spec.provider, spec.instance_type or "", spec.region or ""):
        return ""
    interval = checkpoint_interval_min(spec)
    sleep_s = max(60, math.ceil(interval * 60))
    up = _SYNC_UP.format(folder=folder)
    down = _SYNC_DOWN.format(folder=folder)
    said = _(
        "**Checkpoints on a community host:** this option is a host its provider does not run (a "
        "community host, or a host of unknown kind), and the checkpoint folder is on that host's own "
        "disk: when the host is reclaimed, delisted or fails, the checkpoints go with it, and the same "
        "`docker run` on another host starts from nothing. Copy them off the host as they are written: "
        "start this beside the `docker run` (every {interval} min, the checkpoint interval; train.py "
        "writes each checkpoint under a .tmp name and renames it whole, so the copy never holds half "
        "of one; `rclone sync` does the same for any other storage):"
    ).format(interval=f"{interval:g}")
    resume = _(
        "To resume on a new host, copy them back before the same `docker run`, which resumes from the newest:"
    )
    return (
        f"{said}\n\n```bash\nwhile sleep {sleep_s}; do {up}; done &\n```\n\n{resume}\n\n```bash\n{down}\n```"
    )


def _sized_by(spec: LaunchSpec) -> str:
    """Whose figure the checkpoint's size and write time are: the plan's, or (a workload file,
    :meth:`LaunchSpec.with_checkpoint_of`) its traced model's as the plan sizes it."""
    if spec.planned:
        return _("the plan's")
    return _("the workload's traced model as plan sizes it, written at the {gbps} GB/s plan assumes").format(
        gbps=f"{ASSUMED_DISK_GBPS:g}"
    )


def _reckoned_by(spec: LaunchSpec) -> str:
    """Who reckons the checkpoint's write time: the plan, or gpuplan from a workload file's traced
    model (:func:`_sized_by`)."""
    return _("the plan") if spec.planned else _("gpuplan")


def checkpoint_interval_min(spec: LaunchSpec) -> float:
    """The interval train.py checkpoints at, as the README says it: the plan's, to a tenth of a
    minute, and at least that (a tenth of a minute is finer than any checkpoint takes to write; a
    plan's 1e-300 is not written as "every 0.0 min" over a train.py that uses 0.1)."""
    return max(0.1, round(spec.checkpoint_interval_min, 1))


def stop_grace_s(spec: LaunchSpec) -> int:
    """Seconds a stopped job is given between SIGTERM and SIGKILL (``terminationGracePeriodSeconds``,
    ``docker stop -t``) to save its checkpoint: the step in flight and the state gathered, then the
    plan's write time with :data:`WRITE_MARGIN`, up to a multiple of 10 s; at least
    :data:`MIN_GRACE_S`."""
    if spec.checkpoint_write_min is None:
        return MIN_GRACE_S
    need = STEP_AND_GATHER_S + WRITE_MARGIN * spec.checkpoint_write_min * 60
    return max(MIN_GRACE_S, 10 * math.ceil(need / 10))


def _save_s(spec: LaunchSpec) -> float | None:
    """Seconds from SIGTERM to a saved checkpoint at the plan's write time (no margin); None
    without one."""
    if spec.checkpoint_write_min is None:
        return None
    return STEP_AND_GATHER_S + spec.checkpoint_write_min * 60


def stop_grace_note(spec: LaunchSpec) -> str:
    """Why a stopped job is given :func:`stop_grace_s` (README sentences); on spot, where a reclaim's
    notice is shorter than the save (:func:`spot_notice_note`), that the time is for a stop the user
    asks for, and what a reclaim does instead, said right after it."""
    if not (notice := spot_notice_note(spec)):
        return _grace_words(spec)
    return sentences(
        _grace_words(spec),
        _(
            "That time is for a stop you ask for (`kubectl delete`, `docker stop`, a drained node); a "
            "spot reclaim does not wait for it."
        ),
        notice,
    )


def stop_grace_comment(spec: LaunchSpec) -> str:
    """A manifest's header line on its ``terminationGracePeriodSeconds``: what it is for and, on spot
    where the reclaim's notice is shorter than the save, that a reclaim falls back to the last
    periodic checkpoint."""
    grace = stop_grace_s(spec)
    said = _(
        "terminationGracePeriodSeconds {grace}: the time train.py has to save a checkpoint when a pod is "
        "stopped (`kubectl delete`, a drained node)."
    ).format(grace=grace)
    if not spot_notice_note(spec):
        return said
    notice = _reclaim_notice_s(spec)
    interval = f"{checkpoint_interval_min(spec):.1f}"
    return sentences(
        said,
        _(
            "A spot reclaim gives {notice} s of notice, too short to save one: the job resumes from its "
            "last periodic checkpoint (every {interval} min)."
        ).format(notice=notice, interval=interval)
        if notice is not None
        else _(
            "A spot reclaim gives no published notice: the job resumes from its last periodic "
            "checkpoint (every {interval} min)."
        ).format(interval=interval),
    )


def _reclaim_notice_s(spec: LaunchSpec) -> int | None:
    """The plan's provider's published notice before a spot reclaim, s (``SpotFacts.notice_s``, each
    sourced in its provider's facts); None where it publishes none or the provider is not known."""
    if spec.provider is None or spec.provider not in PROVIDERS:
        return None
    return facts(spec.provider).spot.notice_s


def _grace_words(spec: LaunchSpec) -> str:
    """Why a stopped job is given :func:`stop_grace_s`: the plan's write time, or none known."""
    grace = stop_grace_s(spec)
    if spec.checkpoint_write_min is None:
        return _(
            "On SIGTERM train.py finishes its step and saves a checkpoint before it exits. How long the "
            "write takes is not known without a plan: {grace} s is allowed; give a large model more."
        ).format(grace=grace)
    seconds = spec.checkpoint_write_min * 60
    if seconds < 60:  # in minutes to one decimal, a small checkpoint's write would read "0.0 min"
        return _(
            "On SIGTERM train.py finishes its step and saves a checkpoint before it exits: {who} "
            "reckons {write} s to write one, so it is allowed {grace} s (twice the write, for a slower "
            "disk, and a minute for the step in flight)."
        ).format(write=f"{seconds:.2g}", grace=grace, who=_reckoned_by(spec))
    return _(
        "On SIGTERM train.py finishes its step and saves a checkpoint before it exits: {who} reckons "
        "{write} min to write one, so it is allowed {grace} s (twice the write, for a slower disk, and a "
        "minute for the step in flight)."
    ).format(write=f"{spec.checkpoint_write_min:.1f}", grace=grace, who=_reckoned_by(spec))


def spot_notice_note(spec: LaunchSpec) -> str:
    """Where a spot reclaim's notice is shorter than the save (or not published), that a reclaim
    falls back to the periodic checkpoint: a README sentence; "" on demand, without a plan's write
    time, or where the notice covers the save. The plan's spot model already counts half an
    interval lost per reclaim (:mod:`gpuplan.plan.spot`), as if no checkpoint were saved on notice."""
    save_s = _save_s(spec)
    if not spec.spot or save_s is None:
        return ""
    known = facts(spec.provider) if spec.provider is not None and spec.provider in PROVIDERS else None
    notice = _reclaim_notice_s(spec)
    if notice is not None and notice >= save_s:
        return ""
    provider = known.display_name if known is not None else spec.provider
    interval = f"{checkpoint_interval_min(spec):.1f}"
    if notice is None:
        return _(
            "{provider} publishes no notice before a spot reclaim: the machine may go before the "
            "checkpoint on SIGTERM is written (about {save} s), and the run then resumes from the last "
            "periodic checkpoint, up to one interval ({interval} min) of work lost; the plan counts half "
            "an interval per reclaim, on average."
        ).format(provider=provider or _("The provider"), save=f"{save_s:.0f}", interval=interval)
    return _(
        "The spot notice of {provider} is {notice} s, shorter than the checkpoint on SIGTERM takes (about "
        "{save} s): a reclaim ends the machine before it is written, and the run resumes from the last "
        "periodic checkpoint, up to one interval ({interval} min) of work lost; the plan counts half an "
        "interval per reclaim, on average."
    ).format(provider=provider, notice=notice, save=f"{save_s:.0f}", interval=interval)


#: The command that copies a dataset from the provider's own object storage onto a node's disk, as
#: each vendor documents it (read 2026-12-06):
#: - AWS: ``aws s3 sync`` (AWS CLI reference, https://docs.aws.amazon.com/cli/latest/reference/s3/sync.html);
#: - Google Cloud: ``gcloud storage rsync -r`` (https://cloud.google.com/sdk/gcloud/reference/storage/rsync);
#: - Azure: ``azcopy copy … --recursive`` ("azcopy copy",
#:   https://learn.microsoft.com/en-us/azure/storage/common/storage-ref-azcopy-copy);
#: - Alibaba Cloud OSS: ``ossutil cp -r oss://bucket[/prefix] local-path`` ("cp (Download objects)",
#:   https://www.alibabacloud.com/help/en/oss/developer-reference/download-objects-5);
#: - Tencent Cloud COS: ``coscli sync -r <source_path> <destination_path>`` ("Syncing
#:   Upload/Download/Copy - sync", https://www.tencentcloud.com/document/product/436/43257);
#: - Huawei Cloud OBS: ``obsutil sync obs://bucket[/key] folder_url`` ("Synchronously Downloading
#:   Incremental Objects", https://support.huaweicloud.com/intl/en-us/utiltg-obs/obs_11_0043.html);
#: - Volcano Engine TOS: ``tosutil cp cloud_url file_url``, ``-r`` for a batch ("查看支持命令或帮助文档
#:   (help)", https://www.volcengine.com/docs/6349/152758; "通过授权码下载对象(share-cp)",
#:   https://www.volcengine.com/docs/6349/170604).
#: Any other provider: the two commonest, as examples of the kind.
DATASET_COPY_COMMANDS: dict[str, tuple[str, ...]] = {
    "aws": ("aws s3 sync s3://YOUR-BUCKET/PREFIX /data",),
    "gcp": ("gcloud storage rsync -r gs://YOUR-BUCKET/PREFIX /data",),
    "azure": ("azcopy copy 'https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX' /data --recursive",),
    "alibaba": ("ossutil cp -r oss://YOUR-BUCKET/PREFIX/ /data/",),
    "tencent": ("coscli sync -r cos://YOUR-BUCKET/PREFIX/ /data/",),
    "huawei": ("obsutil sync obs://YOUR-BUCKET/PREFIX /data",),
    "volcengine": ("tosutil cp -r tos://YOUR-BUCKET/PREFIX/ /data/",),
}

#: Where the provider has no entry above.
_ANY_PROVIDER = (DATASET_COPY_COMMANDS["aws"][0], DATASET_COPY_COMMANDS["gcp"][0])


def dataset_copy_commands(provider: str | None) -> tuple[str, ...]:
    """The example commands that copy the dataset onto a node's disk from a bucket of ``provider``
    (where the data is kept: its own object-storage command line reads it and writes to the local
    disk, wherever the node runs), or two common ones where gpuplan knows none for it."""
    return DATASET_COPY_COMMANDS.get(provider or "", _ANY_PROVIDER)


def copy_source(spec: LaunchSpec) -> str | None:
    """The provider whose bucket the dataset is copied from: the workload's ``data.location``'s,
    else (data on the user's own site, or not said) the plan's own provider's."""
    if spec.data_location:
        return spec.data_location.split("/", 1)[0].lower()
    return spec.provider


def _copy_duration(hours: float) -> str:
    """A copy's time, every copy's alike: minutes to a tenth under an hour (16.7 min, 33.3 min: one
    had read "33 min" beside another's "16.7 min"), hours above."""
    return format_minutes(hours * 60.0) if hours < 1 else format_hours(hours)


def copy_time_words(spec: LaunchSpec) -> str:
    """How long one node's copy takes, as the plan bills it at set-up, in words; "" where the
    dataset's size is not said. At the user's measured rate (``data.copy_gbps``), else at the rate
    the plan assumes; at the instance's network where the catalog states a slower one."""
    if not spec.dataset_gb:
        return ""
    rate = spec.dataset_copy_gbps or ASSUMED_DISK_GBPS
    network = spec.instance_network_gbps
    if network is not None and network / 8.0 < rate:
        return _(
            "One node's copy of {gb} GB takes {time} at {gbps} GB/s, the instance's {network} Gbit/s "
            "network as the catalog states it, as the plan bills it at set-up."
        ).format(
            gb=format_gb(spec.dataset_gb),
            time=_copy_duration(spec.dataset_gb * 8.0 / network / 3600.0),
            gbps=f"{network / 8.0:g}",
            network=f"{network:g}",
        )
    time = _copy_duration(spec.dataset_gb / rate / 3600.0)
    if spec.dataset_copy_gbps is not None:
        return _(
            "One node's copy of {gb} GB takes {time} at {gbps} GB/s, the rate you measured "
            "(data.copy_gbps), as the plan bills it at set-up."
        ).format(gb=format_gb(spec.dataset_gb), time=time, gbps=f"{rate:g}")
    return _(
        "One node's copy of {gb} GB takes {time} at the assumed {gbps} GB/s (the baseline of AWS's gp3 "
        "volume), as the plan bills it at set-up; measure yours and give it as data.copy_gbps (or plan "
        "--copy-gbps) to have the plan bill that instead."
    ).format(gb=format_gb(spec.dataset_gb), time=time, gbps=f"{rate:g}")


def dataset_copy_note(spec: LaunchSpec) -> str:
    """How the dataset gets onto the nodes' disks, in words (a README paragraph): the plan priced
    its disk per node and a copy of the dataset onto it at set-up, and the launch files copy
    nothing, so the user copies it and says where from, with the object-storage command line of
    the provider where the data is kept (``data.location``; the plan's own provider's where the
    data is on the user's site), and how long the copy takes as the plan bills it; "" without a
    plan's disk (no plan, or a plan that keeps the data in a bucket)."""
    if spec.planned_disk_gb is None:
        return ""
    source = copy_source(spec)
    commands = [f"`{c}`" for c in dataset_copy_commands(source)]
    example = commands[0] if len(commands) == 1 else _("{a} or {b}").format(a=commands[0], b=commands[1])
    words = _(
        "The plan priced {planned} GB on each node's disk (the dataset, the checkpoints it keeps and any "
        "model weights) and, at set-up, a copy of the dataset onto it; each node needs a {disk} GB disk "
        "for them, the OS and the image (a SkyPilot task asks for it as `disk_size`). These files copy "
        "no data: before training starts, copy your dataset onto every node's disk from wherever it is "
        "kept (for example {example}), and read it from there in `build_dataset()` in train.py."
    ).format(planned=f"{spec.planned_disk_gb:,.0f}", disk=f"{spec.disk_size_gb:,}", example=example)
    if spec.data_location and source != spec.provider and source in DATASET_COPY_COMMANDS:
        words = sentences(
            words,
            _(
                "The dataset is kept in {location}: the command is that provider's own tool, which reads "
                "the bucket from this {provider} instance over the internet (the bucket's public endpoint) "
                "and writes to the local disk; {provider}'s own storage tool cannot read it."
            ).format(location=spec.data_location, provider=spec.provider or "?"),
        )
    return sentences(words, copy_time_words(spec))


#: The prefix of a bucket's address in SkyPilot's ``file_mounts`` ``source``, for the providers
#: whose object store SkyPilot reads ("Cloud Buckets": ``s3://``, ``gs://``,
#: ``https://<account>.blob.core.windows.net/<container>``, ``oci://``; SkyPilot docs,
#: https://docs.skypilot.co/en/latest/reference/storage.html, read 2026-12-07; s3, gs and Azure
#: already in v0.7.0's, https://docs.skypilot.co/en/v0.7.0/reference/storage.html).
SKYPILOT_STORES: dict[str, str] = {"aws": "s3://", "gcp": "gs://", "azure": "https://", "oci": "oci://"}
#: What the user sets the task's variable to, per store.
_STORE_EXAMPLE = {"azure": "ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX"}
#: The SkyPilot task's variable that names the bucket (and prefix) the dataset is kept in: required
#: at launch (``envs`` value null: SkyPilot refuses to launch without it; its ``${VAR}`` is filled in
#: ``file_mounts``: SkyPilot docs, "Environment Variables and Secrets", read 2026-12-07).
DATASET_ENV = "DATASET_BUCKET"
#: Where the dataset is on every node.
DATASET_DIR = "/data"


def skypilot_dataset_source(spec: LaunchSpec) -> str | None:
    """The ``file_mounts`` ``source`` a SkyPilot task fetches the dataset from, the bucket left to
    :data:`DATASET_ENV`: where the workload's ``data.location`` is in an object store SkyPilot reads;
    None where the data is on the user's own site, not said, or in a store SkyPilot cannot read."""
    if not spec.data_location:
        return None
    prefix = SKYPILOT_STORES.get(copy_source(spec) or "")
    return f"{prefix}${{{DATASET_ENV}}}" if prefix else None


def dataset_example(spec: LaunchSpec) -> str:
    """What :data:`DATASET_ENV` is set to, as an example for the store the dataset is in."""
    return _STORE_EXAMPLE.get(copy_source(spec) or "", "YOUR-BUCKET/PREFIX")


def _disk_words(spec: LaunchSpec) -> str:
    """The SkyPilot README's sentence on each node's disk and what sized it."""
    if spec.planned_disk_gb is not None:
        return _(
            "The plan priced {planned} GB on each node's disk (the dataset, the checkpoints it keeps and any "
            "model weights): `disk_size` asks for {disk} GB, for them, the OS and the image."
        ).format(planned=f"{spec.planned_disk_gb:,.0f}", disk=f"{spec.disk_size_gb:,}")
    if spec.dataset_gb:
        return _(
            "`disk_size` asks for {disk} GB on each node: the {gb} GB dataset (data.size_gb) and the "
            "checkpoints kept, with room for the OS and the image, as a plan of this workload sizes it."
        ).format(disk=f"{spec.disk_size_gb:,}", gb=format_gb(spec.dataset_gb))
    return _(
        "`disk_size` asks for {disk} GB on each node, SkyPilot's default: the workload does not say how "
        "large its dataset is (data.size_gb), so the disk is not sized for it."
    ).format(disk=f"{spec.disk_size_gb:,}")


def skypilot_dataset_note(spec: LaunchSpec) -> str:
    """The SkyPilot README's paragraph on the dataset: each node's disk and what sized it, and how the
    dataset gets onto it: fetched by the task itself (:func:`skypilot_dataset_source`) on every node
    each time SkyPilot starts the nodes, a managed job's recovery on new nodes included; else copied
    by the user, as :func:`dataset_copy_note` says."""
    source = skypilot_dataset_source(spec)
    if source is None:
        return dataset_copy_note(spec) or _disk_words(spec)
    fetch = _(
        "The dataset is kept in {location}: task.yaml copies it from `{source}` onto every node's disk at "
        "{dir} (`file_mounts`, `mode: COPY`) each time SkyPilot starts the nodes, a managed job recovered "
        "on new nodes included, so no copy by hand is needed; read it from {dir} in `build_dataset()` in "
        "train.py. Give the bucket and prefix it is in at launch (`--env {env}={example}`): SkyPilot "
        "refuses to launch without it."
    ).format(
        location=spec.data_location,
        source=source,
        dir=DATASET_DIR,
        env=DATASET_ENV,
        example=dataset_example(spec),
    )
    # the copy's time as the plan billed it at set-up (without a plan, none billed it)
    return sentences(
        _disk_words(spec), fetch, *([copy_time_words(spec)] if spec.planned and spec.dataset_gb else [])
    )
