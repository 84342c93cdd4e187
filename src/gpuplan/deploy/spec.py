"""What a launch needs, in one typed object built from a plan file or from a workload file.

``LaunchSpec`` is the only input of the generators: it says which GPU, how many per node, how many
nodes, on which provider and pricing model, and what the training (or serving) job looks like. It is
built from the plan JSON that ``gpuplan plan --json`` writes (its recommended option), or directly
from a workload YAML when there is no plan (one node, the GPU and count the user names).

The workload part is read with a deliberately tolerant model: the generators need only a few fields
(task, model source, inputs, parallelism, serving), and unknown fields are ignored so that this
module keeps working while the workload spec grows.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_json, load_yaml, read_text
from gpuplan.catalog.providers import PROVIDERS, declared_provider, kubernetes_service
from gpuplan.catalog.stored_words import Cut
from gpuplan.confine import Folder
from gpuplan.deploy.grammar import (
    CLOUD_NAME,
    DNS_LABEL,
    ENTRY_POINT,
    MAX_BATCH,
    MAX_CHECKPOINT_INTERVAL_MIN,
    MAX_CNY_PER_USD,
    MAX_ENGINE_CONTEXT_TOKENS,
    MAX_ENGINE_SLOTS,
    MAX_EPOCHS,
    MAX_GRADIENT_ACCUMULATION,
    MAX_HOST_MEMORY_GIB,
    MAX_HOST_VCPUS,
    MAX_IMAGE_SIZE,
    MAX_JOB_HOURS,
    MAX_NODES,
    MAX_REPLICA_REQUESTS_PER_S,
    MAX_REPLICAS,
    MAX_RUN_COST_USD,
    MAX_SAMPLES,
    MAX_SEQ_LEN,
    WORD,
    hf_repo_id,
    matches,
    plain_text,
)
from gpuplan.deploy.hub import ModelIdentity, preset_identity, read_config_identity, recorded_identity
from gpuplan.deploy.reasons import reason
from gpuplan.deploy.residency import refuse_outside_countries, refuse_unrun_host
from gpuplan.deploy.serving_spec import PeakFleet, ServingDeployment
from gpuplan.documents.plan import (
    PLAN_SCHEMA_VERSION,
    PlanOption,
    PlanWorkload,
    WorkloadData,
    WorkloadModel,
    upgrade_v1_option,
    workload_digest,
)
from gpuplan.errors import DeployError, GpuplanError, NotFoundError, Phrase, closest
from gpuplan.hardware import GPU, get_gpu
from gpuplan.hardware.mig import mig_gpus
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import also_problems, either, listed, sentences
from gpuplan.launch_disk import (
    DEFAULT_DISK_GB,
    DISK_HEADROOM,
    DISK_STEP_GB,
    MAX_DISK_GB,
    SYSTEM_DISK_GB,
)
from gpuplan.launch_disk import disk_need_gb as _disk_need_gb
from gpuplan.perf.inference import TARGET_UTILISATION
from gpuplan.perf.replica_load import ReplicaLoad, launch_latency_share
from gpuplan.units import (
    ASSUMED_DISK_GBPS,
    CHECKPOINTS_KEPT,
    DEFAULT_CHECKPOINT_INTERVAL_MIN,
    HOURS_PER_MONTH,
    MAX_STORAGE_GBPS,
    default_checkpoint_interval_min,
)
from gpuplan.vocab import (
    COMMITTED_PRICING,
    OptimizerName,
    Parallelism,
    Precision,
    PricingModel,
    Task,
    pricing_name,
    pydantic_cast,
)
from gpuplan.workload.stack import LEVELS, MAX_LOADER_WORKERS, StackSpec

__all__ = [
    "DEFAULT_CHECKPOINT_INTERVAL_MIN",
    "DEFAULT_DISK_GB",
    "DISK_HEADROOM",
    "DISK_STEP_GB",
    "K8S_FIELDS",
    "K8S_FLAGS",
    "MAX_DISK_GB",
    "PLAN_SCHEMA_VERSION",
    "SYSTEM_DISK_GB",
    "EngineSlots",
    "LaunchSpec",
    "PeakFleet",
    "ServingDeployment",
    "committed_ceiling_words",
    "committed_floor_words",
    "kubernetes_option",
    "kubernetes_providers",
    "latency_share_words",
    "max_replicas_words",
    "on_demand_cost_words",
    "peak_ceiling_words",
    "peak_fleet_words",
    "plan_floor_words",
    "plan_money",
    "refuse_declared_provider",
    "refuse_without_kubernetes",
    "replica_weights",
    "short_errors",
    "sizing_lengths",
    "spare_words",
    "split_option",
    "unpriced_ceiling_words",
    "weights_dtype_words",
]

#: How the managed-Kubernetes refusals (:func:`kubernetes_option`) name deploy's choices:
#: ``gpuplan deploy``'s flags, and the service's deploy request's fields (``POST /api/v1/deploy``).
#: ``others`` names another target (``{target}``: its name).
K8S_FLAGS: Mapping[str, str] = MappingProxyType(
    {"target": "--target k8s", "own": "--own-cluster", "others": "--target {target}"}
)
K8S_FIELDS: Mapping[str, str] = MappingProxyType(
    {"target": "target k8s", "own": "own_cluster: true", "others": "target {target}"}
)

if TYPE_CHECKING:
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload
    from gpuplan.workload.stored_weights import StoredWeights


#: Plan files deploy reads: the current version, 5 (whose storage prices the bytes stored, not the
#: launch disk), 4 (no service schedule), 3 (whose service days' hours leave out the start-ups) and
#: 2 (whose service options' ``total_cost_usd`` is the peak fleet all month), none of which deploy
#: reads, and 1 (whose option is upgraded on reading).
_READABLE_PLAN_VERSIONS = (1, 2, 3, 4, 5, PLAN_SCHEMA_VERSION)


#: Longest name (region, instance type, GPU …) a plan option may carry; cloud names are < 64.
MAX_NAME_CHARS = 128
#: The most of a plan's file path a warning shows (the plan is untrusted data), characters.
MAX_PATH_SHOWN = 300

#: The largest checkpoint a plan may state, GB (100 TB: far above any job's), so that a number from a
#: plan made elsewhere cannot ask for an absurd volume.
MAX_CHECKPOINT_GB = 100_000.0
#: The longest start-up before a schedule's hours a plan may state, minutes (a day: a cron line that
#: started the service a day before its hours would run it all week), so that a number from a plan
#: made elsewhere cannot write one.
MAX_PLANNED_LEAD_MIN = 24 * 60
# The launch disk's rule (DISK_HEADROOM, DEFAULT_DISK_GB, SYSTEM_DISK_GB, DISK_STEP_GB, MAX_DISK_GB)
# is gpuplan.launch_disk's, which the plan prices each node's disk by: its names are kept here.

#: A provider's code, cast by the catalog's registry (``gpuplan.catalog.PROVIDERS``: "did you mean").
ProviderField = Annotated[str, BeforeValidator(pydantic_cast(PROVIDERS))]
PricingField = Annotated[PricingModel, BeforeValidator(pydantic_cast(PricingModel))]
TaskField = Annotated[Task, BeforeValidator(pydantic_cast(Task))]
ParallelismField = Annotated[Parallelism, BeforeValidator(pydantic_cast(Parallelism))]


def _word(what: str) -> Callable[[object], object]:
    """A pydantic check that a name is one lower-case word, as the vocabulary's are."""

    def check(value: object) -> object:
        return matches(WORD, value.lower(), what, "'amp-bf16'") if isinstance(value, str) else value

    return check


# A plan file's precision and optimizer are the vocabulary's, as a workload's are: an unknown one had
# been written into train.py, which then trained in plain fp32 or with AdamW without a word.
# A word first (a payload of 100,000 characters is refused in one short line), then the name.
PrecisionField = Annotated[
    str, BeforeValidator(pydantic_cast(Precision)), BeforeValidator(_word("precision"))
]
OptimizerField = Annotated[
    str, BeforeValidator(pydantic_cast(OptimizerName)), BeforeValidator(_word("optimizer"))
]


def _slug(name: str) -> str:
    """A DNS-1123 label (Kubernetes object names, SkyPilot task names): lower case, digits, dashes."""
    s = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")
    s = re.sub(r"-+", "-", s)[:50].strip("-")
    return s or "gpuplan-job"


def short_errors(e: ValidationError) -> Phrase:
    """The first problem of ``e`` as ``field.path: reason``, then the next ones named and any past
    those counted, as a workload file's refusal ends (:func:`gpuplan.i18n.phrases.also_problems`):
    a plan file with four problems had been told the first "(and 3 more)"."""
    first, *rest = e.errors()
    return _described(first, also_problems(rest, _described))


def _described(error: Any, more: str | Phrase = "") -> Phrase:
    """One problem of a plan or launch file as ``field.path: reason`` (the reason alone where it
    names its field), then ``more``."""
    where = ".".join(str(p) for p in error["loc"])
    problem = reason(error)
    # A validator's message may already start with the field's name ("model.python 'x' is not …").
    named = not where or str(problem).startswith((where, where.rsplit(".", 1)[-1]))
    if named:
        return Phrase("{problem}{more}", problem=problem, more=more)
    # TRANSLATORS: a field's path in a plan or workload file, and what is wrong with it
    return Phrase(N_("{where}: {problem}{more}"), where=where, problem=problem, more=more)


@dataclass(frozen=True)
class EngineSlots:
    """The requests one replica of a serving engine runs at once, and what they were counted at
    (``gpuplan.api.engine_batch_slots``); its bounds are checked where a :class:`LaunchSpec` takes it."""

    slots: Annotated[int, Field(ge=1, le=MAX_ENGINE_SLOTS)]
    context_tokens: Annotated[float, Field(ge=1, le=MAX_ENGINE_CONTEXT_TOKENS)]
    """The mean KV context of a running request the KV cache was divided by (tokens)."""
    kv_tokens: Annotated[int, Field(ge=0, le=2**40)]
    """Tokens of KV cache one replica holds, as the estimate counts them: the longest request it can
    take at all (0: none)."""
    trace: Annotated[str | None, Field(max_length=200)]
    """The trace whose request lengths gave it; None: the workload's ``serving:`` lengths, every
    request the same."""
    longest_request: Annotated[int | None, Field(ge=1, le=MAX_ENGINE_CONTEXT_TOKENS)]
    """The trace's longest request, prompt + answer tokens (None without a trace)."""
    load_requests_per_s: Annotated[float, Field(gt=0, le=MAX_REPLICA_REQUESTS_PER_S)]
    """The load on one replica its autoscaler is to scale at, requests/s: the smaller of
    :attr:`estimate_capacity_requests_per_s` and :attr:`capacity_requests_per_s` × the sizing
    utilisation, or the estimate's × :meth:`LaunchSpec.replica_load_share` where the plan met a
    latency target only at that lower share (:mod:`gpuplan.perf.replica_load`), as ``simulate
    autoscale``'s queue policy takes it by default."""
    load_basis: Literal["estimate", "simulation", "latency"]
    """Which figure set :attr:`load_requests_per_s` (:attr:`gpuplan.perf.replica_load.ReplicaLoad.basis`)."""
    load_share: Annotated[float, Field(gt=0, le=1)]
    """:attr:`load_requests_per_s` over the capacity it is a share of."""
    capacity_requests_per_s: Annotated[float, Field(gt=0, le=MAX_REPLICA_REQUESTS_PER_S)]
    """The replica's capacity as the serving simulation's replica has it (every slot busy)."""
    estimate_capacity_requests_per_s: Annotated[float | None, Field(gt=0, le=MAX_REPLICA_REQUESTS_PER_S)]
    """The replica's capacity at full load by gpuplan's estimate (the plan's figure, where deployed
    from a plan that priced these replicas); None: the estimate gives none."""
    in_flight: Annotated[float, Field(ge=0, le=MAX_ENGINE_SLOTS)]
    """Requests in flight (running + waiting) on one replica at that load, Little's law: the load ×
    :attr:`time_in_replica_s`, at most :attr:`slots` (``gpuplan.simulate.in_flight``)."""
    time_in_replica_s: Annotated[float, Field(ge=0, le=1e6)]
    """Mean seconds a request spends on the replica at that load: :attr:`first_token_s` + (its
    output tokens − 1) × :attr:`time_per_output_token_s`."""
    first_token_s: Annotated[float, Field(ge=0, le=1e6)]
    time_per_output_token_s: Annotated[float, Field(ge=0, le=1e6)]
    output_tokens: Annotated[float, Field(ge=1, le=MAX_ENGINE_CONTEXT_TOKENS)]
    """Mean output tokens of a request, of the trace or the serving block."""

    @property
    def replica_load(self) -> ReplicaLoad:
        """The load and the two capacities it was chosen from, for the files' words."""
        return ReplicaLoad(
            requests_per_s=self.load_requests_per_s,
            basis=self.load_basis,
            estimate_capacity_requests_per_s=self.estimate_capacity_requests_per_s,
            simulation_capacity_requests_per_s=self.capacity_requests_per_s,
            share=self.load_share,
        )


class LaunchSpec(BaseModel):
    """Everything the launch-file generators need. Built by :meth:`from_plan_json` or
    :meth:`from_workload`; immutable."""

    # Enum fields validate any spelling and are stored as their plain string values, so that the
    # generators can write them into YAML and shell without conversion. No Inf/NaN: a plan file may
    # come from someone else, and every number here reaches a generated file.
    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=True, allow_inf_nan=False)

    name: str = Field(max_length=63)
    """Job name as a DNS-1123 label (used for Kubernetes objects, images and SkyPilot tasks)."""
    task: TaskField = Task.TRAIN
    provider: ProviderField | None = None
    """Cloud provider; None when launching on hardware the user already has."""
    region: str | None = None
    instance_type: str | None = None
    gpu: str | None = None
    """Canonical GPU id from ``gpuplan.hardware`` (``A100-SXM4-80GB``); None = any / unknown."""
    gpus_per_node: int = Field(default=1, ge=1, le=16)
    nodes: int = Field(default=1, ge=1, le=MAX_NODES)
    pricing: PricingField = PricingModel.ON_DEMAND
    parallelism: ParallelismField = Parallelism.DDP
    precision: PrecisionField = Precision.FP32.value
    optimizer: OptimizerField = OptimizerName.ADAMW.value
    model_entry_point: str | None = None
    """``pkg.module:build`` when the workload's model is the user's own Python code."""
    model_source: str = "stand-in"
    """What the workload names as its model (``preset bert-large``), for comments and READMEs."""
    preset: str | None = None
    """The built-in preset the workload's model is (its registry name), which train.py builds from
    the preset's own code (:mod:`gpuplan.deploy.preset_model`); None: not a preset, or one with an
    adapter (LoRA), which train.py does not build."""
    preset_dropout: bool = True
    """The workload's stack ``dropout``: whether the preset trains with its published dropouts."""
    hf_model_id: str | None = None
    """The Hugging Face Hub model the workload's model is (``meta-llama/Llama-3.1-8B``), which a
    serving engine loads; None where there is none (:mod:`gpuplan.deploy.hub`)."""
    hf_base_model_id: str | None = None
    """The preset's pretrained checkpoint where ``hf_model_id`` is its instruction-tuned one, which
    an engine loads in its place (:data:`gpuplan.deploy.hub.INSTRUCT_MODEL_IDS`); None otherwise."""
    chat_template: bool | None = None
    """Whether ``hf_model_id``'s tokenizer has a chat template: False where known not to (a batch
    job then sends plain completions), None where not known."""
    model_family: str | None = None
    """``decoder``, ``encoder``, ``encoder-decoder``, ``vit`` or ``cnn``; None: not known."""
    model_context_limit: int | None = Field(default=None, ge=1, le=MAX_ENGINE_CONTEXT_TOKENS)
    """Positions the model takes (its preset's, its config.json's ``max_position_embeddings``): the
    longest request a serving engine of it accepts; None: not stated."""
    unread_hf_config: str | None = Field(default=None, max_length=MAX_PATH_SHOWN)
    """A plan's ``model.hf_config`` that could not be read here (moved, deleted, outside the plan
    file's folder) where the plan recorded nothing of its model either (a plan made before it
    recorded ``model.hub_id``, ``family``, ``max_positions``): whether the model has Hub weights an
    engine could run is not known, and the files run a stand-in (:func:`unread_config_warning`).
    As the plan names it, cut to :data:`MAX_PATH_SHOWN` characters; None otherwise."""
    project_dir: str | None = None
    """Folder of the user's own model code (``model_entry_point``) on this machine, resolved and
    checked by the builders to lie inside the folder the user named (the plan's or workload's own,
    or ``--project DIR``; ``gpuplan.confine``); its package goes into the image. None: not copied."""
    project_folder: str | None = Field(default=None, max_length=MAX_PATH_SHOWN)
    """The folder the user named (a plan file's, or ``--project DIR``), where a plan's model code
    was looked for: named when its package is not there (:func:`~gpuplan.deploy.user_package.
    shipped_package`). None for a workload file (its ``project_dir`` is checked as it is read) or a
    plan read without a folder."""
    batch_size: int = Field(default=8, ge=1, le=MAX_BATCH)
    """Per-GPU micro-batch, samples."""
    seq_len: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    output_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """A batch generation job's answer tokens per sample (``inputs.output_tokens``; the prompt is
    ``seq_len``); None: each sample is one forward pass over ``seq_len`` tokens."""
    image_size: int | None = Field(default=None, ge=1, le=MAX_IMAGE_SIZE)
    decodes_images: bool = False
    """An image job (not a service) whose samples the host's CPUs decode in DataLoader workers (the
    workload's ``stack.input_pipeline`` is ``dataloader``): the plan's time assumes the instance's
    vCPUs, or :attr:`loader_workers`, feed its GPUs (``gpuplan.perf.input_pipeline``)."""
    loader_workers: int | None = Field(default=None, ge=0, le=MAX_LOADER_WORKERS)
    """The workload's ``stack.loader_workers``: DataLoader worker processes per GPU; None: not
    given (an image job's estimate then takes one per vCPU of the instance)."""
    gradient_accumulation: int = Field(default=1, ge=1, le=MAX_GRADIENT_ACCUMULATION)
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass: the workload's ``activation_checkpointing``
    full or selective (train.py checkpoints whole blocks for either), or its ``gradient_checkpointing``."""
    compile: bool = False
    """``torch.compile`` the model (the workload's ``compile``)."""
    tensor_parallel: int = Field(default=1, ge=1, le=MAX_NODES * 16)
    pipeline_parallel: int = Field(default=1, ge=1, le=MAX_NODES * 16)
    """The plan's model split: train.py runs data parallelism only, and says so where these are > 1."""
    dataset_samples: int | None = Field(default=None, ge=1, le=MAX_SAMPLES)
    """Samples in the training set (the workload's ``data.samples``); None = unknown."""
    epochs: float | None = Field(default=None, gt=0, le=MAX_EPOCHS)
    checkpoint_interval_min: float = Field(
        default=DEFAULT_CHECKPOINT_INTERVAL_MIN, gt=0, le=MAX_CHECKPOINT_INTERVAL_MIN
    )
    """Minutes between checkpoints: the plan's (its spot-risk optimum, or the workload's
    ``checkpoint.every_min`` where shorter; off spot the workload's, else the default), or without a
    plan the workload's, else the default."""
    checkpoint_interval_defaulted: bool = False
    """True where neither a plan nor the workload's ``checkpoint.every_min`` gave
    :attr:`checkpoint_interval_min` (a workload file): the default, which :meth:`with_checkpoint_of`
    lengthens for a checkpoint slow to write as the plan does off spot
    (:func:`gpuplan.units.default_checkpoint_interval_min`)."""
    keep_checkpoints: int = Field(default=CHECKPOINTS_KEPT, ge=2, le=1_000)
    """Checkpoints on disk at once at the most, the one being written included (the workload's
    ``checkpoint.keep``, else 2): train.py's ``KEEP_CHECKPOINTS``, and what the plan prices as
    stored."""
    checkpoint_gb: float | None = Field(default=None, ge=0, le=MAX_CHECKPOINT_GB)
    """One checkpoint of the job, GB, as the plan stores and prices it (trainable weights at the precision's
    own bytes + optimizer state + buffers): what the checkpoint volume must hold. None without a plan (a
    workload file) or from a plan written before it was kept."""
    checkpoint_write_min: float | None = Field(default=None, ge=0, le=MAX_JOB_HOURS * 60)
    """Minutes the plan assumes one checkpoint takes to write (its storage bandwidth): the time a
    stopped job needs to save. None as :attr:`checkpoint_gb` is."""
    job_time_h: float | None = Field(default=None, ge=0, le=MAX_JOB_HOURS)
    """The plan's estimate of the job's duration, hours (None without a plan)."""
    run_cost_usd: float | None = Field(default=None, ge=0, le=MAX_RUN_COST_USD)
    """The plan's all-in cost of the run on this option, USD (its ``total_cost_usd``); None without
    a plan (a workload file) or where the plan states none."""
    cny_per_usd: float | None = Field(default=None, gt=0, le=MAX_CNY_PER_USD)
    """The plan's rate where it showed its figures in yuan (``display_currency: CNY`` and its
    ``exchange_rate``), so that the README says the cost as the plan did; None: in US dollars."""
    cny_rate_as_of: str | None = Field(default=None, max_length=40)
    """The date of :attr:`cny_per_usd` as the plan states it."""
    expected_interruptions: float | None = Field(default=None, ge=0, le=MAX_JOB_HOURS)
    """Spot reclaims the plan expects over the job, all its instances together (None without a plan,
    or where the plan gives none)."""
    spare_replicas: int = Field(default=0, ge=0, le=MAX_REPLICAS)
    """A service on spot: the replicas of the spare instance(s) its plan priced against reclaims
    (the option's ``spot.service.spare_instances`` × the replicas an instance holds), started with
    the load's so that a reclaim leaves the load carried, as priced; 0 otherwise."""
    peak_fleet: PeakFleet | None = None
    """A workload file's service: the fleet ``gpuplan plan`` sizes for its peak on this GPU, which
    the autoscaler's ``max_replicas`` is (:meth:`with_peak_fleet`); None for a plan (its own
    replicas were sized so) or where the estimate gives none."""
    start_before_max: int | None = Field(default=None, ge=1, le=MAX_REPLICAS * 2)
    """A service whose serving block's ``max_replicas`` is below the replicas it would start (the
    plan's for the load and a spot service's spare; a workload file's for the GPUs given): those
    replicas, of which it starts ``max_replicas`` only; None where the block holds them."""
    instance_usd_per_hour: float | None = Field(default=None, gt=0, le=MAX_RUN_COST_USD)
    """The plan's price of one instance-hour, USD (its option's ``price_usd_per_hour``); None
    without a plan."""
    on_demand_usd_per_instance_hour: float | None = Field(default=None, gt=0, le=MAX_RUN_COST_USD)
    """A service on spot: the catalog's on-demand price of the same instance type in the same
    region, USD per hour, as the plan states it (``spot.service.on_demand_usd_per_instance_hour``):
    what an on-demand fallback replica's instance costs; None where the plan has none (unknown)."""
    disk_size_gb: int = Field(default=DEFAULT_DISK_GB, ge=10, le=MAX_DISK_GB)
    """Boot/working disk per node, GB: :func:`launch_disk_gb` of the plan's :attr:`planned_disk_gb`
    (the dataset, the checkpoints kept and room for the OS and the image), else the default."""
    planned_disk_gb: float | None = Field(default=None, ge=0, le=MAX_DISK_GB)
    """What one node's disk holds as the plan priced it, GB (its ``disk_gb``: the dataset, the
    checkpoints kept, any model weights); None without a plan, for a plan that keeps them in a
    bucket, or from a plan written before it was kept."""
    data_location: str | None = Field(default=None, max_length=200)
    """Where the dataset is kept, ``provider/region`` (the workload's ``data.location``); None: on
    the user's own site, or not said. The README's copy command is that provider's."""
    dataset_gb: float | None = Field(default=None, ge=0, le=MAX_DISK_GB)
    """The dataset's size, GB (the workload's ``data.size_gb``); None: not said."""
    dataset_copy_gbps: float | None = Field(default=None, gt=0, le=MAX_STORAGE_GBPS)
    """The rate the user measured copying the dataset onto an instance's disk, GB/s (the workload's
    ``data.copy_gbps``, or ``plan --copy-gbps`` written into the plan's workload); None: not
    given, and the copy is timed at the plan's assumed rate."""
    instance_network_gbps: float | None = Field(default=None, gt=0)
    """The instance's network as the plan's catalog states it, Gbit/s: a copy goes no faster; None
    without a plan, or where the catalog states none."""
    network_unlisted_gbps: float | None = Field(default=None, gt=0)
    """The rate, Gbit/s over TCP, the job's time takes for a network between its nodes that the
    catalog does not list: the plan's slowest assumed (its ``network_source``), or for a workload
    file the estimator's slow bound; None where the network is listed, given, or not crossed.
    ``gpuplan deploy`` warns of it (:func:`gpuplan.deploy.fabric.unlisted_network_warning`)."""
    host_vcpus: float | None = Field(default=None, gt=0, le=MAX_HOST_VCPUS)
    """vCPUs of one instance of :attr:`instance_type`, as the catalog lists it (:meth:`with_host`);
    None: not known (no instance, or the catalog does not say), and no pod requests CPU."""
    host_memory_gib: float | None = Field(default=None, gt=0, le=MAX_HOST_MEMORY_GIB)
    """Host memory of one instance of :attr:`instance_type`, GiB, as the catalog lists it; None: not
    known, and no pod requests memory."""
    serving: ServingDeployment | None = None
    weights_gb: float | None = Field(default=None, gt=0, le=MAX_DISK_GB)
    """The model weights one replica loads, GB, all its GPUs' together, as the plan's storage and its
    spot replacement count them (the traced parameters and buffers): what a serving engine's pod
    downloads and reads before it serves (:meth:`with_weights_gb`); None: not worked out (no engine,
    or the model not traced), and the startup budget is not sized from them."""
    priced_weights_gb: float | None = Field(default=None, gt=0, le=MAX_DISK_GB)
    """One replica's weights as the plan counts them for its start-up (the model it priced), where
    :attr:`weights_gb` is not worked out because the launch's replica downloads none itself
    (serve.py): a scheduled service's cron lead is sized from them (:attr:`start_up_weights_gb`),
    as the plan bills it; None: not read."""
    planned_lead_min: int | None = Field(default=None, ge=0, le=MAX_PLANNED_LEAD_MIN)
    """Minutes before each day's hours the plan's option bills a new instance's start-up, for a
    service on a schedule (its ``service_day.start_up_min`` where its ``service_day.schedule`` is
    set, in whole minutes): the lead its cron lines start the service at
    (:func:`gpuplan.deploy.engine.schedule_lead`), which deploy need not count again from the
    weights (not known to it where the plan's model cannot be read here); None: no plan, no
    schedule, or a plan that states none."""
    weights_dtype: Literal["float32", "float16", "bfloat16", "float64"] | None = None
    """The dtype the checkpoint stores :attr:`weights_gb` in (its config.json's ``torch_dtype``);
    None: not known, and they are counted at fp32 (or as traced, where that is more)."""
    engine_slots: EngineSlots | None = None
    """The requests one replica of the serving engine runs at once and those its autoscaler holds in
    flight (at the load the plan sizes a replica for), with its KV cache (the longest request the
    engine takes) and the lengths they were counted on; None: not worked out (no engine, or the
    model could not be traced), and the autoscaler scales on GPU utilisation."""
    replica_capacity_requests_per_s: float | None = Field(default=None, gt=0, le=MAX_REPLICA_REQUESTS_PER_S)
    """Requests/s one replica of the service carries, as the plan estimated it (its option's
    ``service.replica_capacity_requests_per_s``: in wall time, a time-sharing replica's share);
    None without a plan (a workload file), for a job that is not a service, or where the plan did
    not estimate it. A plan may come from someone else: finite, above 0 and bounded, or refused."""
    latency_share: float | None = Field(default=None, gt=0, le=1)
    """The share of one replica's capacity the plan's option runs at its load, where the service
    sets a latency target (``serving.p95_latency_ms``, ``ttft_p95_ms``, ``tpot_p95_ms``) and the
    option met it only below :data:`~gpuplan.perf.inference.TARGET_UTILISATION`: the planner added
    replicas for the latency, and an autoscaler holding the usual share would take them away
    (:meth:`replica_load_share`); a time-per-output-token target so keeps the requests in flight per
    replica (Little's law at that load) as few as the plan sized each replica's decode step for.
    None: no target, or the usual share holds it."""
    users_rtt_s: float | None = Field(default=None, ge=0, le=60)
    """The network round trip from the plan's region to the service's farthest users (its option's
    ``service.users_rtt_ms``), s, which the plan added to the p95 latency and first token it held to
    their targets; None: no users named, or no plan."""
    sold_gpu_counts: tuple[float, ...] | None = None
    """The counts of :attr:`gpu` the provider's instance types carry, as the catalog lists them
    (``Store.known_instances``): whether it sells an instance of exactly one replica's GPUs, which
    SkyPilot can pick for a replica smaller than the priced instance. None: not read (no catalog),
    and a replica takes the instance the plan priced — unknown is never the best case."""
    planned_share_gpu: int | None = Field(default=None, ge=1)
    """Replicas to a GPU the plan priced (its workload's ``serving.share_gpu``; 1: a whole GPU
    each), which ``--share-gpu`` may change; None without a plan (a workload file) or for training."""
    batch_inference: bool = False
    """An inference workload without a ``serving:`` block: a batch job that runs once through its
    inputs and exits, not a service (only :data:`gpuplan.deploy.BATCH_TARGETS` write one)."""
    plan_edited: bool | None = None
    """Whether the plan's ``workload`` differs from the one it was planned for (its
    ``workload_sha256``): edited by hand after ``gpuplan plan``, so deploy checks its fit again. None:
    no plan, or a plan that records no digest (written before it did)."""
    network_given_rdma: bool = False
    """The plan timed this job over an RDMA network between nodes that the user gave (``plan
    --network-kind rdma``) for an instance the catalog gives no network: the launch files set NCCL
    up for it on the user's word (:func:`gpuplan.deploy.fabric.given_rdma_env`)."""
    planned: bool = False
    """Built from a plan file (its option priced, its time and cost the plan's); False for a
    workload file deployed on GPUs the user named, whose figures are only the estimator's."""
    chosen_because: str = ""
    """Why the plan's option deployed is not its recommended one, in the user's language (``--target
    k8s``: the recommended option's provider has no managed Kubernetes); "" for the recommended one."""

    @property
    def spot(self) -> bool:
        """True when the job runs on interruptible capacity (needs checkpoint-and-resume)."""
        return self.pricing == "spot"

    @property
    def train_samples(self) -> int | None:
        """Samples seen over the whole job (samples x epochs), or None when the workload omits them."""
        if self.dataset_samples is None:
            return None
        return round(self.dataset_samples * (self.epochs or 1.0))

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_node * self.nodes

    @property
    def gpu_info(self) -> GPU | None:
        """The GPU's datasheet entry, or None when the spec names no GPU."""
        return get_gpu(self.gpu) if self.gpu else None

    def with_serving(self, **changes: Any) -> LaunchSpec:
        """A copy whose serving block has ``changes`` (``share_gpu=4``, ``mig_profile="1g.10gb"`` …),
        validated as the workload's own would be. Raises DeployError for a training spec or a bad
        value."""
        changes = {k: v for k, v in changes.items() if v is not None}
        if not changes:
            return self
        if self.task != "infer":
            raise DeployError.worded(
                N_("{options}: only for serving workloads (task: infer)"), options=listed(sorted(changes))
            )
        if self.batch_inference:
            # a batch job has no replicas to share a GPU or to scale: said, not ignored
            raise DeployError.worded(
                N_(
                    "{options}: only for services (a serving: block); {name} is batch inference, a job that "
                    "runs once through its inputs"
                ),
                options=listed(sorted(changes)),
                name=self.name,
            )
        current = (self.serving or ServingDeployment()).model_dump(exclude_unset=True)
        try:
            serving = ServingDeployment.model_validate({**current, **changes})
            return LaunchSpec.model_validate({**self.model_dump(), "serving": serving})
        except ValidationError as e:
            raise DeployError.worded(N_("serving: {problem}"), problem=short_errors(e)) from e

    def with_peak_fleet(self, fleet: PeakFleet | None) -> LaunchSpec:
        """A workload file's service whose serving block gives no ``max_replicas``, scaling to
        ``fleet``, the replicas ``gpuplan plan`` sizes for its peak, where that is above the room to
        double the replicas started that a plan's autoscaler has: a service started on one GPU had
        been written ``maxReplicas: 2`` where its peak needed 7. Room to double stays where the
        fleet is within it, as the plan's route writes it for the same replicas (16 replicas that
        carry the peak had been held to 16, where the plan's 16 scale to 32). Unchanged for a plan,
        a block that gives its own, or where no fleet is known (None)."""
        serving = self.serving
        if fleet is None or self.planned or serving is None or not serving.ceiling_from_start:
            return self
        most = min(MAX_REPLICAS, max(serving.max_replicas, serving.launch_replicas, fleet.replicas))
        served = serving.model_copy(update={"max_replicas": most})
        return self.model_copy(update={"serving": served, "peak_fleet": fleet})

    def with_sold_gpu_counts(self, instances: Mapping[tuple[str, str], tuple[str, float]]) -> LaunchSpec:
        """A copy that knows the counts of its GPU the provider sells on one instance
        (:attr:`sold_gpu_counts`), from the catalog's ``(provider, instance type) -> (GPU, count)``."""
        if self.provider is None or self.gpu is None:
            return self
        counts = sorted({c for (p, _), (g, c) in instances.items() if p == self.provider and g == self.gpu})
        return LaunchSpec.model_validate({**self.model_dump(), "sold_gpu_counts": tuple(counts)})

    def split_as_planned(self, workload: Workload | str) -> Workload | str:
        """``workload`` (a plan's, or why it could not be read) split as this launch splits each
        replica: a service that stated no tensor_parallel is planned at the split each option needs
        (8 GPUs a replica for a 72B model), and its checks and its autoscaler's requests in flight are
        of that replica, not of one GPU (a target of 1 request a replica had scaled a 72B service to
        its maximum at once). The command line and the service's deploy both read it here."""
        if isinstance(workload, str) or workload.tensor_parallel == self.tensor_parallel:
            return workload
        return workload.model_copy(update={"tensor_parallel": self.tensor_parallel})

    def with_engine_slots(self, sizing: EngineSlots) -> LaunchSpec:
        """A copy whose engine replicas run ``sizing.slots`` requests at once (:attr:`engine_slots`),
        as ``gpuplan.api.engine_batch_slots`` counted them."""
        # as a mapping: an instance would be taken without its bounds checked
        return LaunchSpec.model_validate({**self.model_dump(), "engine_slots": asdict(sizing)})

    def with_held_share(self, sizing: EngineSlots) -> LaunchSpec:
        """A copy whose :attr:`latency_share` is the share ``sizing``'s load holds each replica at
        where a latency target set it (``load_basis`` ``latency``: the highest share at which the
        estimate keeps the targets, ``gpuplan.api.latency_held_share``), else None: the files then
        say what the autoscaler holds, not the plan's load over its replicas."""
        share = sizing.load_share if sizing.load_basis == "latency" else None
        return LaunchSpec.model_validate({**self.model_dump(), "latency_share": share})

    def with_weights_gb(self, gb: float, dtype: str | None = None) -> LaunchSpec:
        """A copy whose replicas load ``gb`` of weights (:attr:`weights_gb`, stored in ``dtype``:
        :attr:`weights_dtype`), bounds checked, on a launch disk that holds them
        (:func:`weights_disk_gb`; the plan's disk where that is larger): the engine downloads them
        onto it before it serves, and a plan that keeps its storage in a bucket, or no plan, did not
        size the disk from them. Raises DeployError where no launch disk holds them."""
        planned = DEFAULT_DISK_GB if self.planned_disk_gb is None else launch_disk_gb(self.planned_disk_gb)
        if not self.planned:
            # a workload file: the plan's own sum, the dataset and the weights on one disk
            planned = launch_disk_gb(stored_gb(self.dataset_gb, gb))
        disk = max(planned, weights_disk_gb(gb))
        return LaunchSpec.model_validate(
            {**self.model_dump(), "weights_gb": gb, "weights_dtype": dtype, "disk_size_gb": disk}
        )

    def with_weights_of(self, traced: Profile, workload: Workload | None) -> LaunchSpec:
        """A copy whose replicas load the weights of ``workload`` (traced as ``traced``; None: not
        read) as its checkpoint stores them, which the engine downloads (:func:`~gpuplan.workload.
        stored_weights.stored_weights`: in the dtype the checkpoint names, else at fp32 or as traced,
        the larger), as the plan counts one replica's; unchanged where the profile counts none. The
        command line and the service's deploy both set them here."""
        stored = replica_weights(traced, workload)
        if stored is None:
            return self
        return self.with_weights_gb(stored.gb, stored.dtype)

    def with_priced_weights_of(self, traced: Profile, workload: Workload | None) -> LaunchSpec:
        """A copy that knows one replica's weights as the plan counts them for its start-up
        (:attr:`priced_weights_gb`, as :meth:`with_weights_of` counts them), its disk, probes and
        downloads unchanged: for a replica that downloads none itself (serve.py)."""
        stored = replica_weights(traced, workload)
        if stored is None:
            return self
        return LaunchSpec.model_validate({**self.model_dump(), "priced_weights_gb": stored.gb})

    @property
    def start_up_weights_gb(self) -> float | None:
        """One replica's weights a new instance's start-up reads, as the plan counts them:
        :attr:`weights_gb`, else :attr:`priced_weights_gb`; None: not known (the start-up is then
        its bound, :data:`gpuplan.start_up.ENGINE_STARTUP_S`)."""
        return self.weights_gb if self.weights_gb is not None else self.priced_weights_gb

    def with_checkpoint_of(self, traced: Profile) -> LaunchSpec:
        """A training job deployed from a workload file (no plan's checkpoint) with the checkpoint of
        ``traced`` as the plan sizes it (trainable weights at the precision's own bytes + optimizer state +
        buffers), written at the bandwidth the plan assumes (:data:`gpuplan.units.ASSUMED_DISK_GBPS`), and,
        where the workload states no interval, the interval the plan takes off spot for it
        (:func:`gpuplan.units.default_checkpoint_interval_min`: 30 min, longer where the writes would take
        more than 5 % of the job). Unchanged for a plan's spec, inference, or a profile that counts no
        checkpoint."""
        if self.planned or self.checkpoint_gb is not None or self.task == "infer":
            return self
        gb = traced.checkpoint_gb
        if gb <= 0:
            return self
        write_min = gb / ASSUMED_DISK_GBPS / 60.0
        update: dict[str, Any] = {"checkpoint_gb": gb, "checkpoint_write_min": write_min}
        # the disk holds the checkpoints kept beside the dataset, as the plan sizes it
        update["disk_size_gb"] = launch_disk_gb(stored_gb(self.dataset_gb, self.keep_checkpoints * gb))
        if self.checkpoint_interval_defaulted:
            update["checkpoint_interval_min"] = default_checkpoint_interval_min(write_min)
        return LaunchSpec.model_validate({**self.model_dump(), **update})

    def with_host(self, vcpus: float | None, memory_gib: float | None) -> LaunchSpec:
        """A copy with the host of one instance (:attr:`host_vcpus`, :attr:`host_memory_gib`), as
        the catalog lists it for :attr:`instance_type`."""
        return LaunchSpec.model_validate(
            {**self.model_dump(), "host_vcpus": vcpus, "host_memory_gib": memory_gib}
        )

    @field_validator("name")
    @classmethod
    def _dns_label(cls, v: str) -> str:
        return matches(DNS_LABEL, v, "name", Phrase(N_("'bert-finetune' (lower case, digits, dashes)")))

    @field_validator("region", "instance_type")
    @classmethod
    def _cloud_name(cls, v: str | None, info: ValidationInfo) -> str | None:
        example = "'us-east-1'" if info.field_name == "region" else "'p4d.24xlarge'"
        return None if v is None else matches(CLOUD_NAME, v, str(info.field_name), example)

    @field_validator("gpu")
    @classmethod
    def _word(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is not None:
            matches(WORD, v.lower(), str(info.field_name), "'amp-bf16'")
        return v

    @field_validator("hf_model_id", "hf_base_model_id")
    @classmethod
    def _hub_id(cls, v: str | None, info: ValidationInfo) -> str | None:
        # It reaches the engine's command line and manifests: an owner/name of the Hub's letters only.
        if v is None or hf_repo_id(v):
            return v
        raise ValueError(
            Phrase(
                N_("{what} {value!r} is not valid (expected something like {example})"),
                what=str(info.field_name),
                value=v[:60],
                example="'meta-llama/Llama-3.1-8B'",
            )
        )

    @field_validator("model_family")
    @classmethod
    def _family(cls, v: str | None) -> str | None:
        return None if v is None else matches(WORD, v, "model_family", "'decoder'")

    @field_validator("model_entry_point")
    @classmethod
    def _entry(cls, v: str | None) -> str | None:
        return None if v is None else matches(ENTRY_POINT, v, "model.python", "'package.module:build'")

    @field_validator("model_source", "project_dir")
    @classmethod
    def _text(cls, v: str | None, info: ValidationInfo) -> str | None:
        return None if v is None else plain_text(v, str(info.field_name))

    @model_validator(mode="after")
    def _consistent(self) -> LaunchSpec:
        split = self.tensor_parallel * self.pipeline_parallel
        if self.serving and self.serving.share_gpu > 1 and split > 1:
            # n replicas time-share one GPU each; a replica of several GPUs has no GPU of its own
            raise ValueError(
                Phrase(
                    N_(
                        "share_gpu: replicas time-share one GPU each, but one replica spans {n} GPUs "
                        "(tensor_parallel × pipeline_parallel); leave share_gpu out"
                    ),
                    n=split,
                )
            )
        if self.serving and split > self.gpus_per_node:
            # Every target writes a replica as one pod, container or cluster of one node: a replica
            # of more GPUs than a node has would never be scheduled (a pod asking for 16 GPUs of
            # 8-GPU nodes), and an engine across nodes needs a Ray cluster none of them sets up.
            raise ValueError(
                Phrase(
                    N_(
                        "one replica spans {n} GPUs (tensor_parallel × pipeline_parallel) but a node "
                        "has {per}: deploy writes each replica on one node, and a replica across "
                        "nodes needs a Ray cluster it does not set up; deploy an option of {n} or "
                        "more GPUs to a node, or split the model within one"
                    ),
                    n=split,
                    per=self.gpus_per_node,
                )
            )
        if self.serving and self.serving.mig_profile and self.gpu:
            gpu = get_gpu(self.gpu)
            if gpu.mig_max_instances == 0:
                raise ValueError(
                    Phrase(N_("{gpu} does not support MIG; use share_gpu (time-slicing) instead"), gpu=gpu.id)
                )
            # A profile the GPU does not offer (1g.5gb is an A100 40GB's) is a pod that never
            # schedules: refused with the GPU's own profiles. A GPU without a table here is taken
            # at its word.
            table = next((t for t in mig_gpus() if gpu.id in t.gpu_ids), None)
            if table is not None:
                table.profile(self.serving.mig_profile)
        return self

    def replica_load_share(self) -> float:
        """The share of a replica's capacity the autoscaler holds each replica at: the planning
        headroom (:data:`~gpuplan.perf.inference.TARGET_UTILISATION`), or the lower share at which
        the plan met the service's latency target (:attr:`latency_share`)."""
        if self.latency_share is None:
            return TARGET_UTILISATION
        return min(TARGET_UTILISATION, self.latency_share)

    # ---- builders ---------------------------------------------------------------------------

    @classmethod
    def from_plan_json(
        cls, path: str | Path, *, project: str | Path | None = None, managed_kubernetes: bool = False
    ) -> LaunchSpec:
        """The recommended option of a plan file written by ``gpuplan plan --json``.

        ``project``: the folder the user named (``--project DIR``) to copy their package from.
        ``managed_kubernetes``: the best option on a provider with a managed Kubernetes service
        (:func:`kubernetes_option`)."""
        folder = Folder.of(path, project)
        path = Path(path)
        text = read_text(path, what="plan file", max_bytes=MAX_DOCUMENT_BYTES, error=DeployError)
        try:
            doc = load_json(text, source=str(path), error=DeployError)
        except DeployError as e:
            raise DeployError.worded(N_("{error}: write it with `gpuplan plan --json`"), error=e) from None
        return cls.from_plan(doc, source=str(path), folder=folder, managed_kubernetes=managed_kubernetes)

    @classmethod
    def from_plan(
        cls,
        doc: object,
        source: str = "plan",
        folder: Folder | None = None,
        *,
        managed_kubernetes: bool = False,
        k8s_names: Mapping[str, str] = K8S_FLAGS,
    ) -> LaunchSpec:
        """Like :meth:`from_plan_json`, from the already-parsed document.

        ``folder``: the folder the user named (the plan file's, or ``--project DIR``). The plan's
        ``model.project_dir`` (whose package goes into a Docker image) is a hint, used only when it
        resolves inside that folder: a plan from elsewhere must not make deploy copy files from
        anywhere else on this machine. With ``--project DIR`` and no usable hint, DIR is the project.
        Without a folder, nothing is copied."""
        if not isinstance(doc, dict) or "schema_version" not in doc:
            raise DeployError.worded(
                N_("{source} is not a gpuplan plan file (no schema_version): re-run `gpuplan plan`"),
                source=source,
            )
        version = doc["schema_version"]
        # JSON's true is not the version 1 (Python's True == 1 would let it through).
        if isinstance(version, bool) or version not in _READABLE_PLAN_VERSIONS:
            first, last = _READABLE_PLAN_VERSIONS[0], _READABLE_PLAN_VERSIONS[-1]
            raise DeployError.worded(
                N_(
                    "plan file has schema version {version}; this gpuplan reads versions {first} to "
                    "{last}: re-run `gpuplan plan`"
                ),
                # In the file's own spelling (JSON's true, not Python's True), cut to a line.
                version=json.dumps(version, ensure_ascii=False)[:40],
                first=first,
                last=last,
            )
        option = doc.get("recommended")
        if not isinstance(option, dict):
            raise DeployError.worded(
                N_("{source} has no recommended option: re-run `gpuplan plan`"), source=source
            )
        chosen_because = ""
        if managed_kubernetes:
            option, chosen_because = kubernetes_option(
                option,
                doc.get("options"),
                k8s_names,
                personas=doc.get("personas"),
                others=lambda: _targets_but_k8s(doc, source, folder),
                cny_per_usd=_cny_rate(doc).get("cny_per_usd"),
            )
        if version == 1:
            # Version 2 renamed only money fields, which deploy does not use: a plan made before
            # still deploys.
            option = upgrade_v1_option(option)
        for key in ("provider", "region", "zone", "instance_type", "gpu", "pricing"):
            value = option.get(key)
            if isinstance(value, str) and len(value) > MAX_NAME_CHARS:
                raise DeployError.worded(
                    N_(
                        "{source}: recommended.{key} is {length:,} characters long (at most {limit}): "
                        "re-run `gpuplan plan`"
                    ),
                    source=source,
                    key=key,
                    length=len(value),
                    limit=MAX_NAME_CHARS,
                )
        try:
            opt = PlanOption.read(option)
        except ValidationError as e:
            raise DeployError.worded(
                N_("{source}: recommended option is malformed: {problem}: re-run `gpuplan plan`"),
                source=source,
                problem=short_errors(e),
            ) from e
        # a plan edited by hand to a region its countries leave out is not launched there
        refuse_outside_countries(opt.provider, opt.region, doc, source=source, plan=True)
        refuse_unrun_host(opt.provider, opt.region, opt.instance_type, doc, source=source, plan=True)
        raw = doc.get("workload")
        recorded = doc.get("workload_sha256")
        # read from the document parsed once here, not from the file again
        edited = None
        if isinstance(recorded, str) and isinstance(raw, dict):
            edited = workload_digest(raw) != recorded
        workload = _read_workload_dict(raw or {}, source)
        _check_model_free_sections(raw or {}, source)
        return _build(
            workload,
            source=source,
            config=_config_inside(workload.model.hf_config, folder),
            project_dir=_project_inside(workload.model.project_dir, folder),
            project_folder=str(folder.path)[:MAX_PATH_SHOWN] if folder is not None else None,
            provider=opt.provider,
            region=opt.region,
            instance_type=opt.instance_type,
            gpu=opt.gpu,
            gpus_per_node=opt.gpus_per_node,
            nodes=opt.nodes,
            pricing=opt.pricing,
            checkpoint_interval_min=opt.checkpoint_interval_min,
            job_time_h=opt.job_time_h,
            run_cost_usd=opt.total_cost_usd,
            **_cny_rate(doc),
            **_checkpoint_facts(doc),
            **_disk_facts(doc),
            replica_capacity_requests_per_s=opt.service.replica_capacity_requests_per_s
            if opt.service
            else None,
            # the engine starts at the split the option was priced at: the planner's choice where
            # the workload gives no tensor_parallel (a 70B service planned on 8 GPUs a replica)
            planned_tensor_parallel=opt.service.tensor_parallel
            if opt.service is not None and opt.service.tensor_parallel_chosen
            else None,
            latency_share=_latency_share(opt),
            users_rtt_s=opt.service.users_rtt_ms / 1000.0
            if opt.service is not None and opt.service.users_rtt_ms is not None
            else None,
            expected_interruptions=opt.expected_interruptions,
            spare_replicas=_spare_replicas(opt),
            planned_lead_min=_planned_lead_min(opt),
            instance_usd_per_hour=opt.price_usd_per_hour or None,
            on_demand_usd_per_instance_hour=opt.spot.service.on_demand_usd_per_instance_hour
            if opt.spot is not None and opt.spot.service is not None
            else None,
            chosen_because=chosen_because,
            network_given_rdma=opt.network_source == "given" and opt.network_timed_kind == "RDMA",
            instance_network_gbps=opt.network_gbps or None,
            network_unlisted_gbps=opt.network_timed_gbps if opt.network_source == "slowest-assumed" else None,
            planned=True,
            plan_edited=edited,
            planned_share=True,
        )

    @classmethod
    def from_workload(
        cls,
        path: str | Path,
        *,
        gpu: str | None = None,
        count: int = 1,
        nodes: int = 1,
        provider: str | None = None,
        region: str | None = None,
        pricing: str = "on_demand",
        instance_type: str | None = None,
        project: str | Path | None = None,
    ) -> LaunchSpec:
        """A launch of the workload file at ``path`` on ``nodes`` nodes of ``count`` GPUs (no plan),
        of ``instance_type`` where it is known (the provider's one shape of that size).

        ``project``: the folder the user named (``--project DIR``); the files the workload names
        (``model.project_dir``) must lie inside it, or inside the workload's own folder without it."""
        folder = Folder.of(path, project)
        path = Path(path)
        text = read_text(path, what="workload file", max_bytes=MAX_DOCUMENT_BYTES, error=DeployError)
        doc = load_yaml(text, source=str(path), error=DeployError)
        if not isinstance(doc, dict):
            raise DeployError.worded(
                N_("{path} is not a workload file (expected a mapping at the top level)"), path=path
            )
        workload = _read_workload_dict(_validated_workload(doc, path, folder), str(path))
        gpu_id = get_gpu(gpu).id if gpu else None
        if provider is not None:
            provider = PROVIDERS.cast(provider)
            if region is not None:
                _check_region(provider, region)
            # validated above: constraints.countries are names the plan reads; without a region the
            # launch names none, and the cloud may start it anywhere
            refuse_outside_countries(provider, region, doc, source=str(path), plan=False)
            refuse_unrun_host(provider, region, instance_type, doc, source=str(path), plan=False)
        config = workload.model.hf_config
        spec = _build(
            workload,
            source=str(path),
            # resolved and checked against the folder by _validated_workload
            config=Path(config) if config else None,
            project_dir=workload.model.project_dir,
            provider=provider,
            region=region,
            instance_type=instance_type,
            gpu=gpu_id,
            gpus_per_node=count,
            nodes=nodes,
            pricing=pricing,
            checkpoint_interval_min=None,
            job_time_h=None,
        )
        # the disk holds the dataset, as the plan's route sizes it (its checkpoints once traced:
        # with_checkpoint_of); too large a one is refused here as there
        return spec.model_copy(update={"disk_size_gb": launch_disk_gb(stored_gb(spec.dataset_gb))})


def replica_weights(traced: Profile, workload: Workload | None) -> StoredWeights | None:
    """The weights one replica of ``workload`` (traced as ``traced``; None: not read) loads, as its
    checkpoint stores them (:func:`~gpuplan.workload.stored_weights.stored_weights`), as the plan
    counts one replica's; None where the profile counts none."""
    from gpuplan.workload.stored_weights import stored_weights

    traced_gb = (traced.peak.parameters_bytes + traced.peak.buffers_bytes) / 1e9
    if traced_gb <= 0:
        return None
    return stored_weights(workload, traced.params, traced_gb)


def _option_words(option: dict[str, Any]) -> str:
    """An option as the plan's table names it: ``lambdalabs us-east-1 gpu_8x_h100_sxm5``."""
    return " ".join(str(option.get(k)) for k in ("provider", "region", "instance_type") if option.get(k))


def kubernetes_providers() -> Phrase:
    """The registered providers with a managed Kubernetes service: ``aws (EKS), azure (AKS), …``."""
    return listed([f"{p} ({k})" for p in PROVIDERS if (k := kubernetes_service(p))])


def kubernetes_option(
    recommended: dict[str, Any],
    options: object,
    names: Mapping[str, str] = K8S_FLAGS,
    *,
    personas: object = None,
    others: Callable[[], list[str]] | None = None,
    cny_per_usd: float | None = None,
) -> tuple[dict[str, Any], str]:
    """The plan option to deploy on a managed Kubernetes service, and why it is not the recommended
    one ("" where it is): the recommended option where its provider has one, else the first of the
    plan's ranked ``options`` whose provider has one, else the option of the plan's ``kubernetes``
    persona (``personas``: the plan's best option on a managed Kubernetes service, a whole option
    like the ranked ones, which cheap marketplace offers can push out of the ranked list however
    long). Why it is not says what the plan prices the option deployed at against the recommended one
    (:func:`_substitute_cost`; ``cny_per_usd``: the plan's rate where it showed yuan). A provider
    whose module states none (a marketplace such as Lambda, RunPod or Vast.ai) or that is not
    registered has no managed Kubernetes known. No option on one: refused in one line
    naming the option, the providers that have one and the other targets that write the recommended
    option (``others``: their names, tried on it; None: every other target named)."""
    provider = recommended.get("provider")
    if isinstance(provider, str) and kubernetes_service(provider):
        return recommended, ""
    ranked = [o for o in options if isinstance(o, dict)] if isinstance(options, list) else []
    for o in ranked:
        p = o.get("provider")
        if isinstance(p, str) and (cluster := kubernetes_service(p)):
            why = _(
                "{target}: the recommended option {option} is on {provider}, which has no managed "
                "Kubernetes known to gpuplan; deploying the plan's best option on one that has: "
                "{chosen} ({cluster})"
            ).format(
                target=names["target"],
                option=_option_words(recommended),
                provider=provider,
                chosen=_option_words(o),
                cluster=cluster,
            )
            return o, why + _("; ") + _substitute_cost(o, recommended, cny_per_usd)
    pick = _kubernetes_persona(personas)
    if pick is not None:
        why = _(
            "{target}: the recommended option {option} is on {provider}, which has no managed "
            "Kubernetes known to gpuplan, nor has any of the plan's ranked options; deploying the "
            "plan's kubernetes pick (its best option on a managed Kubernetes service): {chosen} "
            "({cluster})"
        ).format(
            target=names["target"],
            option=_option_words(recommended),
            provider=provider,
            chosen=_option_words(pick),
            cluster=kubernetes_service(str(pick.get("provider"))),
        )
        return pick, why + _("; ") + _substitute_cost(pick, recommended, cny_per_usd)
    found = others() if others is not None else ["skypilot", "docker", "torchrun"]
    raise DeployError.worded(
        N_(
            "{target}: the plan's option {option} is on {provider}, which has no managed Kubernetes "
            "known to gpuplan, nor has any other option of the plan; providers with one: {providers}. "
            "Plan with one of them, use {others}, or give {own} "
            "if you run Kubernetes there yourself"
        )
        if found
        else N_(
            "{target}: the plan's option {option} is on {provider}, which has no managed Kubernetes "
            "known to gpuplan, nor has any other option of the plan; providers with one: {providers}. "
            "Plan with one of them, or give {own} if you run Kubernetes there yourself"
        ),
        target=names["target"],
        option=_option_words(recommended),
        provider=provider,
        providers=kubernetes_providers(),
        others=either([names["others"].format(target=t) for t in found]),
        own=names["own"],
    )


def _usd(value: object) -> float | None:
    """A plan document's dollar figure, where it is a finite number of at least 0; None otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        return None
    return float(value)


def _option_cost(option: Mapping[str, Any], cny_per_usd: float | None) -> str | None:
    """An option's cost as the plan states it (``total_cost_usd``, with its band where the plan gives
    one), in the plan's currency; None where the plan states none."""
    cost = _usd(option.get("total_cost_usd"))
    if cost is None:
        return None
    places = 0 if cost >= 1000 else 2  # whole dollars (yuan) a month, cents for a short run
    words = money_at(cost, cny_per_usd, places)
    low, high = _usd(option.get("total_cost_usd_low")), _usd(option.get("total_cost_usd_high"))
    band = [money_at(v, cny_per_usd, places) for v in (low, high) if v is not None]
    if len(band) == 2 and band != [words, words]:
        words += f" [{band[0]}–{band[1]}]"
    return words


def _substitute_cost(
    option: Mapping[str, Any], recommended: Mapping[str, Any], cny_per_usd: float | None
) -> str:
    """What the plan prices ``option`` (deployed in place of ``recommended``) at, against the
    recommended option's cost, from the plan document's own figures: a month of a service (an option
    with a ``service``), else the run; its price's date as the plan states it. That the plan states
    none, where it does not (never a cost of 0)."""
    cost = _option_cost(option, cny_per_usd)
    if cost is None:
        return _("the plan states no cost for it, and the recommended option's cost does not apply to it")
    hours = _usd(option.get("job_time_h"))
    if isinstance(option.get("service"), dict):
        span = _("a month of serving")
    elif hours is not None:
        span = _("the run ({hours:,.1f} h)").format(hours=hours)
    else:
        span = _("the run")
    as_of = option.get("as_of")
    if isinstance(as_of, str) and as_of:
        dated = (
            _("its price as of {as_of}, treated as stale")
            if option.get("stale") is True
            else _("its price as of {as_of}")
        )
        span += _(" ({dated})").format(dated=dated.format(as_of=as_of[:MAX_NAME_CHARS]))
    theirs = _option_cost(recommended, cny_per_usd)
    if theirs is None:
        return _("the plan prices it at {cost} for {span}").format(cost=cost, span=span)
    return _(
        "the plan prices it at {cost} for {span}, against {theirs} for the recommended option, whose "
        "cost does not apply to these files"
    ).format(cost=cost, span=span, theirs=theirs)


def _targets_but_k8s(doc: dict[str, Any], source: str, folder: Folder | None) -> list[str]:
    """The targets other than k8s that write the plan's recommended option, tried on it."""
    from gpuplan.deploy.instead import accepting_targets

    try:
        spec = LaunchSpec.from_plan(doc, source, folder)
    except DeployError:
        return []  # the plan itself is refused: no target writes it
    return accepting_targets(spec, "k8s")


def _kubernetes_persona(personas: object) -> dict[str, Any] | None:
    """The option of the plan's ``kubernetes`` persona where its provider has a managed Kubernetes
    service; None where the plan has none (an older plan, or no such option was feasible)."""
    if not isinstance(personas, list):
        return None
    for persona in personas:
        if not isinstance(persona, dict) or persona.get("persona") != "kubernetes":
            continue
        option = persona.get("option")
        if (
            isinstance(option, dict)
            and isinstance(p := option.get("provider"), str)
            and kubernetes_service(p)
        ):
            return option
    return None


#: The launchers that need nothing of a provider: a command and an image, run on machines the user
#: rented wherever they rent them.
PROVIDER_AGNOSTIC_TARGETS = ("torchrun", "docker")


def refuse_declared_provider(provider: str | None, target: str, spec: LaunchSpec | None = None) -> None:
    """A launch by ``target`` on a provider the user declared (``catalog import --new-provider``):
    refused in one line, but for the provider-agnostic targets; no launcher of gpuplan knows its
    machines, images, clusters or API. The line names the provider-agnostic targets that write
    ``spec`` (torchrun writes no service)."""
    if provider is None or target in PROVIDER_AGNOSTIC_TARGETS or not declared_provider(provider):
        return
    if spec is None:
        agnostic = list(PROVIDER_AGNOSTIC_TARGETS)
    else:
        from gpuplan.deploy.instead import accepting_targets

        agnostic = [t for t in accepting_targets(spec, target) if t in PROVIDER_AGNOSTIC_TARGETS]
    if not agnostic:
        raise DeployError.worded(
            N_(
                "{target}: {provider} is a provider you declared, and no launcher of gpuplan knows its "
                "machines or API"
            ),
            target=f"--target {target}",
            provider=provider,
        )
    raise DeployError.worded(
        N_(
            "{target}: {provider} is a provider you declared, and no launcher of gpuplan knows its "
            "machines or API; use {targets} on the machines you rent there"
        ),
        target=f"--target {target}",
        provider=provider,
        targets=either([f"--target {t}" for t in agnostic]),
    )


def refuse_without_kubernetes(provider: str) -> None:
    """A launch on ``provider`` (a workload file's ``--provider``) where it has no managed
    Kubernetes: refused in one line naming the providers that have one."""
    if kubernetes_service(provider):
        return
    raise DeployError.worded(
        N_(
            "{target}: {provider} has no managed Kubernetes known to gpuplan; providers with one: "
            "{providers}. Choose one of them, or give {own} if you run Kubernetes there yourself"
        ),
        target=K8S_FLAGS["target"],
        provider=provider,
        providers=kubernetes_providers(),
        own=K8S_FLAGS["own"],
    )


def _validated_workload(doc: dict[str, Any], path: Path, folder: Folder) -> dict[str, Any]:
    """The workload file checked by gpuplan.workload (the same errors as `gpuplan plan` gives), as
    plain data, the files it names checked against ``folder``. Its ``serving`` block carries
    deploy's settings too (share_gpu, mig_profile …)."""
    from gpuplan.workload import Workload
    from gpuplan.workload.paths import confine_model

    doc = confine_model(doc, file=path, folder=folder, error=DeployError)
    return Workload.from_dict(doc, source=str(path)).to_dict()


def _read_workload_dict(doc: dict[str, Any], source: str) -> PlanWorkload:
    try:
        return PlanWorkload.read(doc)
    except ValidationError as e:
        raise DeployError.worded(
            N_("{source}: workload is invalid: {problem}"), source=source, problem=short_errors(e)
        ) from e


def _check_model_free_sections(doc: dict[str, Any], source: str) -> None:
    """The plan's workload sections that do not depend on its model (``data``, ``serving``,
    ``constraints``) checked as a workload file's are, for every target: a plan's workload is read
    loosely above (it may carry keys of a later workload), and its model is read where each target
    needs it (its files may not be here), so a malformed ``data.location`` had been refused by the
    one target that rebuilt the whole workload, as a fit not checked, and deployed by the others."""
    from gpuplan.workload._validation import Spec
    from gpuplan.workload.spec import ConstraintsSpec, DataSpec, ServingSpec

    class Sections(Spec):
        data: DataSpec | None = None
        serving: ServingSpec | None = None
        constraints: ConstraintsSpec | None = None

    try:
        Sections.model_validate({k: doc[k] for k in ("data", "serving", "constraints") if k in doc})
    except ValidationError as e:
        raise DeployError.worded(
            N_("{source}: workload is invalid: {problem}"), source=source, problem=short_errors(e)
        ) from None


def _project_inside(project_dir: str | None, folder: Folder | None) -> str | None:
    """The plan's ``project_dir`` when it resolves (links followed) to a folder inside ``folder``;
    else ``--project DIR`` itself when the user gave it; else None (nothing is copied)."""
    if folder is None:
        return None
    if project_dir is not None:
        try:
            resolved = Path(project_dir).resolve()
            if folder.contains(resolved) and resolved.is_dir():
                return str(resolved)
        except (OSError, ValueError, RuntimeError):
            pass
    return None if folder.source else str(folder.path)


def _config_inside(hf_config: str | None, folder: Folder | None) -> Path | None:
    """The plan's ``model.hf_config`` where it resolves to a file or folder inside ``folder`` (read
    for its Hub id only there: a plan may come from someone else), else None."""
    if hf_config is None or folder is None:
        return None
    try:
        resolved = Path(hf_config).resolve()
        return resolved if folder.contains(resolved) and resolved.exists() else None
    except (OSError, ValueError, RuntimeError):
        return None


def _cny_rate(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The plan's CNY rate where it showed its figures in yuan (``cny_per_usd``, ``cny_rate_as_of``
    of :class:`LaunchSpec`); nothing where it showed dollars, or its rate is not a sensible one."""
    rate = doc.get("exchange_rate")
    if doc.get("display_currency") != "CNY" or not isinstance(rate, dict) or rate.get("currency") != "CNY":
        return {}
    units = rate.get("units_per_usd")
    if isinstance(units, bool) or not isinstance(units, (int, float)) or not 0 < units <= MAX_CNY_PER_USD:
        return {}
    as_of = rate.get("as_of")
    return {"cny_per_usd": float(units), "cny_rate_as_of": as_of[:40] if isinstance(as_of, str) else None}


def _checkpoint_facts(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The plan's checkpoint size and write time (``checkpoint_gb``, ``checkpoint_write_min`` of
    :class:`LaunchSpec`), where it states them as numbers; a number out of range is refused by the
    field. Nothing from a plan written before it kept them."""
    facts = {}
    for key in ("checkpoint_gb", "checkpoint_write_min"):
        value = doc.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            facts[key] = float(value)
    return facts


def stored_gb(dataset_gb: float | None, *more_gb: float) -> float:
    """What one node's disk holds without a plan, GB: the dataset (none where its size is not said)
    and ``more_gb`` (the checkpoints kept, the weights), the sum the plan prices as its disk
    (``JobFacts.stored_gb_per_copy``)."""
    return (dataset_gb or 0.0) + sum(more_gb)


def launch_disk_gb(planned_gb: float) -> int:
    """The disk a node is launched with for ``planned_gb`` of dataset and checkpoints (the plan's
    ``disk_gb``): those with the filesystem's headroom (:data:`DISK_HEADROOM`)
    and :data:`SYSTEM_DISK_GB` for the OS and the image, up to a whole :data:`DISK_STEP_GB`, at
    least :data:`DEFAULT_DISK_GB`. Raises DeployError where that is beyond :data:`MAX_DISK_GB`: a
    capped disk would fill while the dataset is copied onto it or a checkpoint is written."""
    need = _disk_need_gb(planned_gb)
    if need > MAX_DISK_GB:
        raise DeployError.worded(
            N_(
                "the plan's {gb} GB on each node's disk (the dataset, the checkpoints it keeps and any "
                "model weights) need a {need} GB disk with room for the OS and the image, more than the "
                "{most} GB launch files ask for: plan it with its data in a bucket (--storage object)"
            ),
            gb=f"{planned_gb:,.0f}",
            need=f"{need:,}",
            most=f"{MAX_DISK_GB:,}",
        )
    return need


def weights_dtype_words(spec: LaunchSpec) -> str:
    """The sentence that says in which dtype :attr:`LaunchSpec.weights_gb` counts the weights: the
    one the checkpoint stores them in, which the engine downloads whatever precision it runs in,
    or, not known, why they are counted at fp32."""
    if spec.weights_dtype is not None:
        return _(
            "They are counted in {dtype}, as the checkpoint stores them (its config.json's "
            "torch_dtype): the engine downloads them so, whatever precision it runs in."
        ).format(dtype=spec.weights_dtype)
    return _(
        "The dtype the checkpoint stores them in is not known here, so they are counted at 4 bytes "
        "each (fp32, the widest checkpoints are commonly kept in), or as traced where that is more."
    )


def weights_disk_gb(weights_gb: float) -> int:
    """The launch disk of a node whose engine downloads ``weights_gb`` of model weights before it
    serves: :func:`launch_disk_gb` of them (the filesystem's headroom and the OS and the image's
    room, at least the default). Raises DeployError where that is beyond :data:`MAX_DISK_GB`: a
    capped disk would fill while the weights download, and the replica would never start."""
    need = _disk_need_gb(weights_gb)
    if need > MAX_DISK_GB:
        raise DeployError.worded(
            N_(
                "a replica's {gb} GB of weights need a {need} GB disk with room for the OS and the "
                "image, more than the {most} GB launch files ask for: serve the model in a smaller "
                "precision"
            ),
            gb=f"{weights_gb:,.0f}",
            need=f"{need:,}",
            most=f"{MAX_DISK_GB:,}",
        )
    return need


def _disk_facts(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The plan's disk per node (``planned_disk_gb``) and the launch disk sized from it
    (``disk_size_gb``), where the plan states it as a number; nothing otherwise (the default disk).
    A number out of range is refused by the field."""
    value = doc.get("disk_gb")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return {}
    return {"planned_disk_gb": float(value), "disk_size_gb": launch_disk_gb(max(0.0, float(value)))}


def _identity(m: WorkloadModel, config: Path | None) -> tuple[ModelIdentity, str | None]:
    """Hub id, family and positions of the workload's model (:mod:`gpuplan.deploy.hub`), and the
    ``hf_config`` none of them is known of: not read here, nothing recorded of it in the plan
    (:attr:`LaunchSpec.unread_hf_config`; None where it was read, or something was recorded)."""
    unknown = ModelIdentity(None, None, None)
    if m.python:
        return unknown, None
    if m.hf_config:
        read = read_config_identity(config) if config is not None else None
        if read is None or read == unknown:
            # the config did not travel with the plan: what the plan recorded of it where it was made
            recorded = recorded_identity(m.hub_id, m.family, m.max_positions)
            unread = read is None and recorded == unknown
            # as a warning may show it on a terminal: one line, escaped (the plan is untrusted data), cut
            return recorded, str(Cut(m.hf_config, MAX_PATH_SHOWN)) if unread else None
        found = read
    elif m.preset:
        found = preset_identity(m.preset)
    else:
        return unknown, None
    named = recorded_identity(m.hub_id, None, None).hub_id
    if named is None or named == found.hub_id:
        return found, None
    # the workload names the weights: a checkpoint of this architecture whose chat template is not known
    return found._replace(hub_id=named, base_id=None, chat=None), None


def _copy_facts(workload: PlanWorkload) -> dict[str, Any]:
    """:attr:`LaunchSpec.data_location`, :attr:`LaunchSpec.dataset_gb` and
    :attr:`LaunchSpec.dataset_copy_gbps` of the workload's data section (each None where not said)."""
    data = workload.data or WorkloadData()
    return {"data_location": data.location, "dataset_gb": data.size_gb, "dataset_copy_gbps": data.copy_gbps}


def _samples(workload: PlanWorkload) -> int | None:
    data = workload.data or WorkloadData()
    if data.samples is None and data.tokens is not None and workload.inputs.seq_len:
        return max(1, data.tokens // workload.inputs.seq_len)  # the workload spec's own definition
    return data.samples


def committed_ceiling_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on a service planned on committed capacity (a monthly subscription, a
    reservation) whose autoscaler stops at the replicas the plan bought; None otherwise."""
    serving = spec.serving
    if serving is None or spec.pricing not in COMMITTED_PRICING:
        return None
    if serving.max_replicas > serving.launch_replicas:
        return None
    return _(
        "The plan's {n} replicas run on {pricing} capacity, bought for its term: the autoscaler keeps "
        "at most those {n}, adding none the plan did not price; set serving.max_replicas in the workload "
        "to let it add replicas on hourly nodes, billed apart."
    ).format(n=serving.launch_replicas, pricing=pricing_name(spec.pricing))


def committed_floor_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on a serving block's ``min_replicas`` raised to the replicas a plan
    bought on committed capacity (paid whether they run or not); None where nothing was raised."""
    serving = spec.serving
    if serving is None or serving.committed_floor_given is None:
        return None
    return _(
        "The serving block's min_replicas, {given}, is raised to the {n} replicas the plan bought on "
        "{pricing} capacity: they are paid for the term whether they run or not, so scaling below them "
        "saves nothing and leaves the next peak waiting for a replica to start."
    ).format(given=serving.committed_floor_given, n=serving.min_replicas, pricing=pricing_name(spec.pricing))


def unpriced_ceiling_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on replicas the autoscaler may add above those a plan priced, on
    hourly capacity: billed apart; None otherwise (no plan, committed capacity, no room above)."""
    serving = spec.serving
    if serving is None or spec.run_cost_usd is None or spec.pricing in COMMITTED_PRICING:
        return None
    priced = serving.start_replicas or serving.min_replicas
    if serving.max_replicas <= priced:
        return None
    words = _(
        "Replicas the autoscaler adds above the {n} the plan priced (up to {most}) are not in the plan's "
        "cost: each is billed by the hour, at the option's price, while it runs."
    ).format(n=priced, most=serving.max_replicas)
    if spec.instance_usd_per_hour is None:
        return words
    # the ceiling in money: what the plan calls its bound is its own fleet all month; the autoscaler
    # may run this many more instances (a team read the plan's figure as the most it could pay)
    per_instance = max(1, spec.gpus_per_node // max(1, spec.tensor_parallel * spec.pipeline_parallel))
    per_instance *= serving.share_gpu
    more = math.ceil(serving.max_replicas / per_instance) - math.ceil(priced / per_instance)
    if more <= 0:
        return words
    return words + _(
        " At {most} replicas all month that is {amount} more than the plan's fleet ({more} more "
        "instance(s) × {hours:.0f} h × {price}/h); set serving.max_replicas to hold it to the plan."
    ).format(
        most=serving.max_replicas,
        amount=plan_money(spec, more * HOURS_PER_MONTH * spec.instance_usd_per_hour),
        more=more,
        hours=HOURS_PER_MONTH,
        price=plan_money(spec, spec.instance_usd_per_hour, 3),
    )


def plan_floor_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on an autoscaler whose floor is the plan's replicas on hourly capacity
    (the serving block gives no ``min_replicas``): it never scales below what was priced for the
    peak, so the service pays the peak all month; how to let it scale down. None otherwise (a
    floor the workload gives; committed capacity, bought for its term either way)."""
    serving = spec.serving
    if serving is None or not serving.floor_from_plan or spec.pricing in COMMITTED_PRICING:
        return None
    if serving.schedule is not None:
        # none outside its hours (k8s/keda-scaledobject.yaml's cron trigger), the floor in them
        return _(
            "The service runs {when} only: outside those hours no replica runs; in them the "
            "autoscaler never goes below the {n} replicas the plan priced, as the plan prices them."
        ).format(when=serving.schedule.window.said, n=serving.launch_replicas)
    if not spec.planned:
        # a workload file: the floor is the GPUs given, which no plan sized or priced
        return _(
            "The autoscaler never goes below the replicas of the GPUs given (--count: {n}), all month: "
            "no plan sized them for the load or priced them (`gpuplan plan` does both). To let it "
            "scale down when the load falls (at night), set serving.min_replicas in the workload; "
            "`gpuplan simulate autoscale` with your traffic shows what a lower floor saves and what it "
            "does to latency."
        ).format(n=serving.min_replicas)
    return _(
        "The autoscaler never goes below the {n} replicas the plan priced for the load it was given, "
        "all month, as the plan prices them: to let it scale down when the load falls (at night), set "
        "serving.min_replicas in the workload; `gpuplan simulate autoscale` with your traffic shows "
        "what a lower floor saves and what it does to latency."
    ).format(n=serving.min_replicas)


def sizing_lengths(sizing: EngineSlots) -> str:
    """The request lengths an engine's slots and its replica's capacity were worked out on, in words
    (:func:`gpuplan.perf.replica_load.replica_load_words`)."""
    if sizing.trace is not None:
        return _("the request lengths of trace {trace}").format(trace=sizing.trace)
    return _("the serving block's request lengths, every request at them")


def peak_ceiling_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on a workload file's autoscaler whose most replicas, each held at the
    load its target is worked out at, carry less than the service's peak (``serving.requests_per_s``):
    requests queue at the peak however far it scales. None where they carry it, where either figure
    is not known, or for a plan (sized for its load)."""
    serving = spec.serving
    sizing = spec.engine_slots
    if spec.planned or serving is None or sizing is None or serving.requests_per_s is None:
        return None
    most = max(serving.max_replicas, serving.launch_replicas)
    carried = most * sizing.load_requests_per_s
    if carried >= serving.requests_per_s * (1 - 1e-9):
        return None
    return _(
        "The autoscaler's most replicas ({most}), each held at {load} requests/s, carry {carried} "
        "requests/s: short of the service's peak of {peak} requests/s (serving.requests_per_s), so "
        "requests queue at the peak; {needed} replicas carry it (a larger --count, or "
        "serving.max_replicas of at least that)."
    ).format(
        most=most,
        load=f"{sizing.load_requests_per_s:.3g}",
        carried=f"{carried:.3g}",
        peak=f"{serving.requests_per_s:g}",
        needed=math.ceil(serving.requests_per_s / sizing.load_requests_per_s - 1e-9),
    )


def peak_fleet_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on where a workload file's autoscaler ceiling comes from: the fleet
    ``gpuplan plan`` sizes for the service's peak (:meth:`LaunchSpec.with_peak_fleet`), or room to
    double the replicas of the GPUs given, where the fleet is within it or the estimate sized none.
    None for a plan, or a serving block that gives its own ``max_replicas``."""
    serving = spec.serving
    if spec.planned or serving is None or not serving.ceiling_from_start:
        return None
    fleet = spec.peak_fleet
    if fleet is None:
        return _(
            "The autoscaler's maxReplicas, {most}, is room to double the replicas of the GPUs given "
            "(--count): gpuplan's estimate sized no fleet for this service's load. `gpuplan plan` sizes "
            "one; set serving.max_replicas in the workload to choose it."
        ).format(most=serving.max_replicas)
    fields = {
        "most": serving.max_replicas,
        "gpu": fleet.gpu,
        "rate": f"{fleet.requests_per_s:g}",
        "capacity": f"{fleet.replica_capacity_requests_per_s:.3g}",
        "pct": f"{TARGET_UTILISATION * 100:.0f}",
    }
    if serving.max_replicas > fleet.replicas:
        return _(
            "The autoscaler's maxReplicas, {most}, is room to double the {n} replicas of the GPUs given "
            "(--count), as a plan's autoscaler has for the replicas it priced: {fleet} replicas carry "
            "the service's {rate} requests/s peak on {gpu} (serving.requests_per_s) by gpuplan's "
            "estimate, each loaded to at most {pct} % of the {capacity} requests/s one carries at full "
            "load. Set serving.max_replicas in the workload to hold it lower."
        ).format(n=serving.launch_replicas, fleet=fleet.replicas, **fields)
    return _(
        "The autoscaler's maxReplicas, {most}, is the fleet `gpuplan plan` sizes for the service's "
        "peak on {gpu}, by gpuplan's estimate: {n} replicas carry its {rate} requests/s "
        "(serving.requests_per_s), each loaded to at most {pct} % of the {capacity} requests/s one "
        "carries at full load (more where the workload's latency targets need them). Set "
        "serving.max_replicas in the workload to scale higher."
    ).format(n=fleet.replicas, **fields)


def latency_share_words(share: float) -> str | None:
    """The README's sentence on an autoscaler that holds each replica at ``share`` of its capacity
    (:meth:`LaunchSpec.replica_load_share`) where that is below the planning headroom, for the
    service's latency target; None where it is not."""
    if share >= TARGET_UTILISATION:
        return None
    return _(
        "By gpuplan's estimate (the latency model plans are checked with) the service's latency "
        "target holds only up to {share} % of a replica's capacity, below the {usual} % plans size "
        "fleets for: the autoscaler holds each replica at that share, and adds replicas above it."
    ).format(share=f"{share * 100:.0f}", usual=f"{TARGET_UTILISATION * 100:.0f}")


def _latency_share(option: PlanOption) -> float | None:
    """:attr:`LaunchSpec.latency_share` of a plan's option: its utilisation at the load where the
    service has a latency target and the option runs below the planning headroom."""
    service = option.service
    if service is None:
        return None
    return launch_latency_share(
        utilisation=service.utilisation,
        has_latency_target=any(
            t is not None for t in (service.p95_target_s, service.ttft_target_s, service.tpot_target_s)
        ),
    )


def _planned_lead_min(option: PlanOption) -> int | None:
    """:attr:`LaunchSpec.planned_lead_min` of a plan's option: the start-up its day bills before a
    schedule's hours (``service_day.start_up_min``, whole minutes as the plan bills them); None
    without a schedule (the figure is then a start-up the day does not start at), or a day."""
    day = option.service_day
    if day is None or day.schedule is None:
        return None
    return math.ceil(day.start_up_min - 1e-9)


def _spare_replicas(option: PlanOption) -> int:
    """:attr:`LaunchSpec.spare_replicas` of a plan's option: its spare spot instances' replicas."""
    service = option.spot.service if option.spot is not None else None
    if service is None:
        return 0
    return service.spare_instances * service.replicas_per_reclaim


def split_option(spec: LaunchSpec) -> str:
    """`` --tensor-parallel N`` for a replay command of a replica split over N GPUs (the plan's choice
    for a workload that states none: its file alone would be simulated on one GPU a replica); ""
    for one GPU a replica."""
    return f" --tensor-parallel {spec.tensor_parallel}" if spec.tensor_parallel > 1 else ""


def plan_money(spec: LaunchSpec, usd: float, places: int = 2) -> str:
    """``usd`` in the currency the plan showed its figures in: yuan at the plan's own rate where it
    was made with ``--currency CNY`` (:attr:`LaunchSpec.cny_per_usd`), dollars otherwise, so that a
    README speaks of money as the plan it comes from did."""
    return money_at(usd, spec.cny_per_usd, places)


def money_at(usd: float, cny_per_usd: float | None, places: int = 2) -> str:
    """``usd`` in yuan at ``cny_per_usd`` where a plan showed yuan, else in dollars."""
    if cny_per_usd is not None:
        return f"¥{usd * cny_per_usd:,.{places}f}"
    return f"${usd:,.{places}f}"


def on_demand_cost_words(spec: LaunchSpec) -> str:
    """What an on-demand instance of a spot service's type and region costs against the spot one the
    plan priced, per hour (the catalog's price, as the plan states it, in the plan's currency); that
    it is unknown where the plan has none, never 0."""
    instance = spec.instance_type or spec.gpu or _("this instance")
    region = spec.region or _("its region")
    spot_usd = spec.instance_usd_per_hour
    spot = f"{plan_money(spec, spot_usd, 3)}/h" if spot_usd else _("unknown")
    if spec.on_demand_usd_per_instance_hour is None:
        words = _(
            "The plan holds no on-demand price of {instance} in {region}, so what an on-demand replica "
            "costs is unknown (spot: {spot}): check it before you rely on the fallback."
        ).format(instance=instance, region=region, spot=spot)
        dollars = f"${spot_usd:,.3f}/h" if spot_usd else None
    else:
        od = spec.on_demand_usd_per_instance_hour
        extra = ""
        if spot_usd:
            extra = _("; {more} more an hour each, {month} a month").format(
                more=plan_money(spec, od - spot_usd, 3),
                month=plan_money(spec, (od - spot_usd) * HOURS_PER_MONTH),
            )
        words = _(
            "An on-demand {instance} in {region} costs {od}/h against {spot} on spot (the catalog's "
            "on-demand price of the same type and region{extra}); the plan's cost includes no on-demand "
            "replica: each one costs that while it runs."
        ).format(instance=instance, region=region, od=plan_money(spec, od, 3), spot=spot, extra=extra)
        dollars = (
            _("{od}/h against {spot}/h").format(od=f"${od:,.3f}", spot=f"${spot_usd:,.3f}")
            if spot_usd
            else f"${od:,.3f}/h"
        )
    if spec.cny_per_usd is None or dollars is None:
        return words
    # the catalog prices in dollars: the figures it holds, and the rate the plan turned them at
    return sentences(
        words,
        _(
            "The catalog prices them in dollars ({dollars}), turned into yuan at the plan's "
            "1 USD = {rate:g} CNY{as_of}."
        ).format(
            dollars=dollars,
            rate=spec.cny_per_usd,
            as_of=f", {spec.cny_rate_as_of}" if spec.cny_rate_as_of else "",
        ),
    )


def spare_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on the spare a spot service's plan priced and the files start; None
    without one."""
    serving = spec.serving
    if serving is None or spec.spare_replicas <= 0 or spec.start_before_max is not None:
        return None  # held below the spare (or the load) by max_replicas: max_replicas_words says it
    total = serving.start_replicas or serving.min_replicas
    load = total - spec.spare_replicas
    words = _(
        "The plan priced a spare instance against spot reclaims (spare replicas: {spare}, beside the "
        "{load} that carry the load): the service starts all {total}, so a reclaim leaves the load "
        "carried while its replacement starts."
    ).format(spare=spec.spare_replicas, load=load, total=total)
    if serving.spare_floor_given is not None:
        # the floor said in the manifest's own numbers: the block's minimum and the spare above it
        words = sentences(
            words,
            _(
                "The autoscaler's minReplicas, {floor}, is the serving block's min_replicas, {given}, "
                "and the spare above it: when the load falls the autoscaler keeps the spare running, "
                "as the plan priced it all month."
            ).format(floor=serving.min_replicas, given=serving.spare_floor_given),
        )
    if serving.max_replicas == 2 * load + spec.spare_replicas and load > 0:
        # the manifest's ceiling in the same numbers (the spare once, not doubled with the load)
        words = sentences(
            words,
            _(
                "The autoscaler's maxReplicas, {most}, is room to double the {load} that carry the load, "
                "and the spare once."
            ).format(most=serving.max_replicas, load=load),
        )
    return words


def max_replicas_words(spec: LaunchSpec) -> str | None:
    """The README's sentence on a serving block whose ``max_replicas`` is below the replicas the
    service would start: what it holds (the load but not all of a spot service's spare, or not even
    the load) and what to set; None where it holds them all."""
    serving = spec.serving
    wanted = spec.start_before_max
    if serving is None or wanted is None:
        return None
    most = serving.max_replicas
    spare = spec.spare_replicas
    load = wanted - spare
    if spare > 0 and most >= load:
        kept = most - load
        return (
            _(
                "The plan priced a spare instance against spot reclaims (spare replicas: {spare}, beside "
                "the {load} that carry the load), but the serving block's max_replicas, {most}, holds the "
                "load and not the spare: the service starts {most}, so a reclaim leaves the load short "
                "while its replacement starts. Set serving.max_replicas to at least {wanted} to run the "
                "spare the plan priced."
            )
            if kept == 0
            else _(
                "The plan priced a spare instance against spot reclaims (spare replicas: {spare}, beside "
                "the {load} that carry the load), but the serving block's max_replicas, {most}, holds the "
                "load and {kept} of the spare: the service starts {most}. Set serving.max_replicas to at "
                "least {wanted} to run the whole spare the plan priced."
            )
        ).format(spare=spare, load=load, most=most, kept=kept, wanted=wanted)
    if spec.planned:
        return (
            _(
                "The serving block's max_replicas, {most}, is below the {load} replicas the plan priced "
                "for the load: the service starts and scales to at most {most}, so requests queue at the "
                "planned load. Set serving.max_replicas to at least {wanted}."
            )
            if spare == 0
            else _(
                "The serving block's max_replicas, {most}, is below the {load} replicas the plan priced "
                "for the load, and leaves out the {spare} spare it priced against spot reclaims: the "
                "service starts and scales to at most {most}, so requests queue at the planned load. Set "
                "serving.max_replicas to at least {wanted}."
            )
        ).format(most=most, load=load, spare=spare, wanted=wanted)
    return _(
        "The serving block's max_replicas, {most}, is below the {load} replicas of the GPUs given "
        "(--count): the service starts and scales to at most {most}. Set serving.max_replicas to at "
        "least {wanted}, or give fewer GPUs."
    ).format(most=most, load=load, wanted=wanted)


def _serving_for(
    workload: PlanWorkload, launch: dict[str, Any], per_replica: int = 1
) -> tuple[ServingDeployment | None, int | None]:
    """The serving block, with the replica range defaulting to what the plan priced: one replica
    per planned ``per_replica`` GPUs (its tensor × pipeline split, one pod) to start, room to double
    under load; and :attr:`LaunchSpec.start_before_max`, the replicas it would start where the
    block's ``max_replicas`` holds it to fewer."""
    given = ServingDeployment.model_validate(workload.serving) if workload.serving is not None else None
    if workload.task != "infer":
        return given, None
    serving = given or ServingDeployment()
    # replicas the plan priced: a GPU's worth each, or share_gpu of them time-sharing each GPU
    gpus = max(1, launch.get("gpus_per_node", 1) * launch.get("nodes", 1) // max(1, per_replica))
    gpus *= serving.share_gpu
    spare = launch.get("spare_replicas", 0)
    gpus += spare  # a spot service's spare, priced with the load
    update: dict[str, int | None] = {}
    # Start what the plan priced, never fewer (a workload's min_replicas: 1 had started one replica
    # of the three the plan priced for the load); no more than a max_replicas given. A min_replicas
    # the serving block gives stays the autoscaler's floor: the service scales down to it when the
    # load falls (the plan prices the load it was given, the peak where that is what was given).
    given_min = "min_replicas" in serving.model_fields_set
    start = max(gpus, serving.min_replicas) if given_min else gpus
    wanted = start
    if "max_replicas" in serving.model_fields_set:
        start = min(start, serving.max_replicas)
    update_floor: dict[str, bool] = {"floor_from_plan": not given_min}
    committed = launch.get("pricing") in {p.value for p in COMMITTED_PRICING}
    if not given_min:
        update["min_replicas"] = start
    elif committed and serving.min_replicas < start:
        # bought for the term (a monthly subscription, a reservation): paid whether they run or
        # not, so the autoscaler keeps them all; a floor of 1 under 2 bought saved nothing and
        # queued the next peak behind a replica's start
        update["min_replicas"] = start
        update["committed_floor_given"] = serving.min_replicas
    elif spare > 0 and serving.min_replicas >= 1 and serving.min_replicas < start:
        # a spot service's spare is kept at the floor too, above the load's own floor: held at the
        # block's min_replicas, the autoscaler had taken the spare away at the first quiet hour, and
        # a reclaim then took a replica the load needed (the plan priced the spare all month)
        floor = min(serving.min_replicas + spare, start)
        update["min_replicas"] = floor
        update["spare_floor_given"] = serving.min_replicas
        if start != floor:
            update["start_replicas"] = start
    elif start != serving.min_replicas:
        update["start_replicas"] = start
    if "max_replicas" not in serving.model_fields_set:
        # room to double what was priced (the serving block's own default, 8, was as many as 4×
        # the replicas of a 2-GPU plan, and 32 GPUs for replicas of 4); none on committed capacity
        # (a monthly subscription, a reservation): the plan bought its replicas, and one more
        # would be capacity it priced nowhere
        # The room doubles the replicas that carry the load; a spot service's spare is there once,
        # to stand in for a reclaimed replica, not a load to double (20 replicas and a spare: 41, as
        # a workload file's 20 replicas get 40, where doubling the 21 had written 42).
        update["max_replicas"] = start if committed else max(start, 2 * start - spare)
        update_floor["ceiling_from_start"] = not committed
    clipped = wanted if wanted > start else None
    return serving.model_copy(update={**update, **update_floor}), clipped  # min ≤ start ≤ max by construction


def _adapter_words(lora: object) -> str:
    """ ", LoRA rank 16 on q, v, base stored nf4 (double quantization)" (and the adapters' dtype and
    dropout where set) for the workload's
    ``model.lora`` (empty without one): what the plan priced and train.py does not build."""
    if not isinstance(lora, dict) or not isinstance(lora.get("rank"), int):
        return ""
    targets = lora.get("targets") or ["q", "v"]
    words = f", LoRA rank {lora['rank']} on {', '.join(str(t) for t in targets)}"
    if lora.get("dtype") == "model":
        words += ", adapters in the model dtype"
    dropout = lora.get("dropout")
    if isinstance(dropout, (int, float)) and dropout > 0:
        words += f", adapter dropout {dropout:g}"
    quantization = lora.get("quantization")
    if isinstance(quantization, str) and quantization != "none":
        words += f", base stored {quantization}"
        if lora.get("double_quantization") is True:
            words += " (double quantization)"
    return words


def _model_source(m: WorkloadModel) -> str:
    """What the workload names as its model (``preset bert-large``), for comments and READMEs.

    A plan's preset is looked up as a workload file's is: one a plan file was edited to name
    (``bert-lage``) is refused with the near names, not written into the launch as it was."""
    from gpuplan.workload.presets.registry import PRESETS

    if m.python:
        words = f"python {m.python}"
    elif m.hf_config:
        # Its folder and file only: the launch files travel to other machines, and this one's
        # absolute path (a home folder, a user name) is no business of theirs.
        words = f"hf_config {'/'.join(Path(m.hf_config).parts[-2:])}"
    elif m.preset:
        info = PRESETS.get(m.preset.strip().lower())
        if info is None:
            # The near names only: the list of every preset would make the line run on.
            raise NotFoundError("preset", m.preset[:MAX_NAME_CHARS], PRESETS)
        words = f"preset {info.name}"
    else:
        words = "stand-in"
    return words + _adapter_words((m.model_extra or {}).get("lora"))


def _build(
    workload: PlanWorkload,
    *,
    source: str,
    config: Path | None,
    planned_share: bool = False,
    planned_tensor_parallel: int | None = None,
    **launch: Any,
) -> LaunchSpec:
    """``planned_share``: the workload is a plan's, whose share of a GPU per replica was priced.
    ``planned_tensor_parallel``: the degree the plan's option split each replica at (the planner's
    choice where the workload gives none); None: the workload's."""
    m = workload.model
    extra = dict(workload.model_extra or {})
    if planned_tensor_parallel is not None:
        extra["tensor_parallel"] = planned_tensor_parallel
    cadence = workload.checkpoint
    if launch.get("checkpoint_interval_min") is None:
        # no plan (or a plan without one): the workload's interval, else the default the plan
        # prices off spot
        stated = cadence.every_min if cadence is not None else None
        launch["checkpoint_interval_min"] = stated or DEFAULT_CHECKPOINT_INTERVAL_MIN
        launch["checkpoint_interval_defaulted"] = not stated
    if cadence is not None and cadence.keep is not None:
        launch["keep_checkpoints"] = cadence.keep
    if not m.python:
        launch["project_dir"] = None  # only the user's own model code is packaged
    try:
        model_source = _model_source(m)
        identity, unread_config = _identity(m, config)
        gpu = launch.get("gpu")
        if gpu:
            launch["gpu"] = get_gpu(gpu).id
        serving, launch["start_before_max"] = _serving_for(
            workload, launch, extra.get("tensor_parallel", 1) * extra.get("pipeline_parallel", 1)
        )
        if planned_share and serving is not None and workload.task == "infer":
            launch["planned_share_gpu"] = serving.share_gpu
        return LaunchSpec(
            name=_slug(workload.name),
            task=workload.task,
            parallelism=workload.parallelism,
            precision=workload.precision,
            optimizer=workload.optimizer,
            model_entry_point=m.python,
            model_source=model_source,
            **_preset(m, extra.get("stack")),
            hf_model_id=identity.hub_id,
            hf_base_model_id=identity.base_id,
            chat_template=identity.chat,
            model_family=identity.family,
            model_context_limit=identity.positions,
            unread_hf_config=unread_config,
            batch_size=workload.inputs.batch_size,
            seq_len=workload.inputs.seq_len,
            output_tokens=workload.inputs.output_tokens if workload.serving is None else None,
            image_size=workload.inputs.image_size,
            **_loader(workload, extra.get("stack")),
            gradient_accumulation=workload.gradient_accumulation,
            gradient_checkpointing=workload.gradient_checkpointing
            or extra.get("activation_checkpointing") in ("full", "selective"),
            compile=extra.get("compile") is True,
            tensor_parallel=extra.get("tensor_parallel", 1),
            pipeline_parallel=extra.get("pipeline_parallel", 1),
            dataset_samples=_samples(workload),
            epochs=(workload.data or WorkloadData()).epochs,
            **_copy_facts(workload),
            serving=serving,
            batch_inference=workload.task == "infer" and workload.serving is None,
            **launch,
        )
    except ValidationError as e:
        raise DeployError.worded(
            N_("{source}: cannot build a launch from it: {problem}"), source=source, problem=short_errors(e)
        ) from e
    except GpuplanError as e:
        # TRANSLATORS: a plan or workload file, and the error one of its names gave
        raise DeployError.worded(N_("{source}: {error}"), source=source, error=e) from e


def _preset(m: WorkloadModel, stack: object) -> dict[str, Any]:
    """:attr:`LaunchSpec.preset` and :attr:`LaunchSpec.preset_dropout` of the workload's model
    (``_model_source`` has refused a preset the registry does not know)."""
    from gpuplan.workload.presets.registry import PRESETS

    info = PRESETS.get(m.preset.strip().lower()) if m.preset and not m.python and not m.hf_config else None
    if info is None or (m.model_extra or {}).get("lora"):
        return {}
    return {"preset": info.name, "preset_dropout": StackSpec.model_validate(stack or {}).dropout}


def _loader(workload: PlanWorkload, stack: object) -> dict[str, Any]:
    """:attr:`LaunchSpec.decodes_images` and :attr:`LaunchSpec.loader_workers` of ``workload``,
    whose ``stack`` block (as the workload writes it) is read as ``gpuplan.workload`` reads it: its
    level's input pipeline where it names none. A stack that does not read is refused as the rest
    of the workload is."""
    spec = StackSpec.model_validate(stack if stack is not None else {})
    pipeline = spec.input_pipeline or LEVELS[spec.level].input_pipeline
    return {
        "decodes_images": workload.inputs.image_size is not None
        and workload.serving is None
        and workload.task != "infer"
        and pipeline.value == "dataloader",
        "loader_workers": spec.loader_workers,
    }


def _check_region(provider: str, region: str) -> None:
    """A region the provider module does not list, but close to one it does (``us-eats-1``): a typo,
    refused with the near names. One near none of them is taken as written: the modules' lists can
    lag a provider's newest regions, and a launch names what the user asked for."""
    from gpuplan.catalog.providers import REGISTRY

    known = [r.code for r in REGISTRY[provider].FACTS.regions]
    if region in known or not closest(region, known):
        return
    raise NotFoundError("region", region, known, hint=N_("`gpuplan offers --all-regions` lists them"))
