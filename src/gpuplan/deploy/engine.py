"""The serving engine a decoder LLM's inference service runs: the one the plan priced.

The plan prices an LLM service as a continuous-batching engine (vLLM or SGLang, the workload's
``serving.engine``; ``gpuplan.perf.engine_cpu``). Where the workload's model is a decoder with a
Hugging Face Hub id (:mod:`gpuplan.deploy.hub`), the targets run that engine's official image with
the plan's settings; anything else keeps serve.py, and :func:`serve_py_reason` says why.

The flags, as each engine documents them:

- vLLM, the OpenAI-compatible server (the image's entry point, ``python3 -m
  vllm.entrypoints.openai.api_server``): ``--model``, ``--port``, ``--tensor-parallel-size``,
  ``--max-model-len``, ``--gpu-memory-utilization``, ``--enable-prefix-caching`` (docs.vllm.ai
  "Engine Arguments", v0.8.5: https://docs.vllm.ai/en/v0.8.5/serving/engine_args.html). From V1
  (0.8) prefix caching is on by default and the flag is a boolean pair, ``--no-enable-prefix-caching``
  turning it off (as vLLM 0.20's argument list shows it, Cloudera AI 1.5.5 SP3 "Supported vLLM
  command line arguments"); before 0.8 it is off unless given. Health: ``GET /health`` (vLLM
  "Using Kubernetes", docs.vllm.ai/en/v0.8.2/deployment/k8s.html).
- SGLang (``python3 -m sglang.launch_server``): ``--model-path``, ``--host``, ``--port``, ``--tp``,
  ``--context-length``, ``--mem-fraction-static``, ``--disable-radix-cache`` (docs.sglang.io
  "Server Arguments", https://docs.sglang.io/advanced_features/server_arguments.html). Its default
  host is 127.0.0.1, so ``--host 0.0.0.0`` for the pod's port. Health: ``GET /health`` (SGLang's
  docker/compose.yaml healthcheck).

Images: vLLM publishes ``vllm/vllm-openai:v<version>`` on Docker Hub (vLLM "Deploying with
Docker"). SGLang publishes ``lmsysorg/sglang:v<version>-cu<CUDA>``: ``v0.4.0.post1-cu124`` …
``v0.4.7.post1-cu124``, ``v0.4.8.post1-cu126`` onwards, and from 0.5 also the bare ``v<version>``
(``v0.5.5``, ``v0.5.18``: the release's default CUDA build; ``v0.5.19-cu129`` the last CUDA 12 one,
SGLang "Installation", docs.sglang.io/docs/get-started/install).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from gpuplan.day_load import Schedule
from gpuplan.deploy.grammar import ENGINE_PIN
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_, _
from gpuplan.i18n.phrases import sentences
from gpuplan.perf.engines import ESTIMATOR_MEMORY_FRACTION, NEWEST_KNOWN, engine_defaults
from gpuplan.start_up import ENGINE_STARTUP_S, StartUp, replica_start_up

__all__ = [
    "BOOT_LEFT_OUT",
    "DEFAULT_ENGINE",
    "ENGINE_HEALTH_PATH",
    "ENGINE_PORT",
    "ENGINE_STARTUP_S",
    "IN_FLIGHT_GAUGES",
    "K8S_SCALE_DOWN_S",
    "NEWEST_KNOWN",
    "ON_GPU_UTILISATION",
    "SKYSERVE_SCALE_DOWN_S",
    "STARTUP_MARGIN",
    "STARTUP_STEP_S",
    "UNCHECKED_CONTEXT",
    "EngineLaunch",
    "batch_engine_launch",
    "checkpoint_note",
    "cold_start",
    "cold_start_s",
    "cron_lines",
    "engine_launch",
    "engine_note",
    "hub_note",
    "schedule_lead",
    "schedule_lead_min",
    "schedule_start_up",
    "serve_py_reason",
    "startup_seconds",
    "unchecked_context",
    "unpriced_share",
    "unread_config_warning",
]

#: The engine's HTTP port in every target (vLLM's own default; SGLang is told it).
ENGINE_PORT = 8000
#: Both engines answer 200 here once the server is up (see the module docstring).
ENGINE_HEALTH_PATH = "/health"
#: The startup budget over the cold start it is sized from (:func:`startup_seconds`). The cold start
#: reads the weights at the disk rate the plan assumes (EBS gp3's baseline), but a replica downloads
#: them from the Hugging Face Hub first, at a rate gpuplan does not know; half as much again before a
#: replica still downloading is taken to have failed (and started again, to download from the
#: start). A budget too long only delays noticing a replica that hangs while starting.
STARTUP_MARGIN = 1.5
#: Budgets are whole steps of this many seconds (the Kubernetes startup probe's period).
STARTUP_STEP_S = 10
#: Seconds the Kubernetes target's autoscaler waits before it removes a replica the load no longer
#: needs: the HPA's scale-down stabilisation window and KEDA's cooldown period deploy writes (a GPU
#: replica is expensive to start again).
K8S_SCALE_DOWN_S = 300
#: Seconds SkyServe waits so: its ``downscale_delay_seconds`` default, 1200 s, which deploy leaves as
#: it is (``sky/serve/constants.py`` of SkyPilot 0.14.1, read 2026-12-05).
SKYSERVE_SCALE_DOWN_S = 1200


#: Why deploy's cold start leaves the instance's boot out, in words: its probes count from the
#: container's start, after the node is up and the image pulled.
BOOT_LEFT_OUT = N_(
    "the probes count from the container's start, on a node already up (a warm node pool starts no "
    "new one; a node the cluster adds takes that long first)"
)


def cold_start(weights_gb: float | None, read_gbps: float | None = None) -> StartUp:
    """A replica's start-up as deploy counts it: the one model plan and ``simulate autoscale`` count
    (:func:`gpuplan.start_up.replica_start_up`), the weights read at ``read_gbps`` (the workload's
    ``data.copy_gbps``; None: :data:`~gpuplan.units.ASSUMED_DISK_GBPS`) and the instance's boot left
    out, as the probes count from the container's start (:data:`BOOT_LEFT_OUT`)."""
    return replica_start_up(
        weights_gb,
        read_gbps,
        given=None if read_gbps is None else "data.copy_gbps",
        boot_left_out=_(BOOT_LEFT_OUT),
    )


def cold_start_s(weights_gb: float, replicas: int, read_gbps: float | None = None) -> float:
    """Seconds until ``replicas`` replicas starting together on one machine serve, from their
    containers' start (:func:`cold_start`): the engine's start and each replica's ``weights_gb`` read
    through the machine's one disk."""
    return cold_start(weights_gb, read_gbps).seconds(replicas)


def startup_seconds(weights_gb: float | None, replicas: int, read_gbps: float | None = None) -> int:
    """How long a replica is given to come up: :data:`STARTUP_MARGIN` × :func:`cold_start_s` in
    whole :data:`STARTUP_STEP_S` steps, at least :data:`ENGINE_STARTUP_S` (also where the weights
    are not known, None)."""
    if weights_gb is None:
        return ENGINE_STARTUP_S
    steps = math.ceil(STARTUP_MARGIN * cold_start_s(weights_gb, replicas, read_gbps) / STARTUP_STEP_S)
    return max(ENGINE_STARTUP_S, steps * STARTUP_STEP_S)


def schedule_start_up(weights_gb: float | None, read_gbps: float | None = None) -> StartUp:
    """A new instance's start-up before a schedule's hours: :func:`cold_start` with the instance's
    boot counted (the cron starts a node, not a container on one already up), the one model plan
    bills a scheduled day's start-ups with (:meth:`gpuplan.start_up.StartUp.lead_min`)."""
    return cold_start(weights_gb, read_gbps).with_boot()


def schedule_lead_min(weights_gb: float | None, replicas: int, read_gbps: float | None = None) -> int:
    """Minutes before a schedule's hours its replicas are started, so that they serve from its first
    minute: a new instance's boot and the cold start of ``replicas`` replicas on it, their weights
    read at ``read_gbps`` (``data.copy_gbps``; None: assumed), the weights' size not known the
    startup budget (:data:`ENGINE_STARTUP_S`), rounded up to the whole minute a cron line fires at —
    the minutes the plan bills before each day's hours (:func:`schedule_start_up`)."""
    return schedule_start_up(weights_gb, read_gbps).lead_min(replicas)


def schedule_lead(spec: LaunchSpec, replicas: int) -> tuple[int, str]:
    """Minutes before a scheduled service's hours its cron lines start a new instance of
    ``replicas`` replicas, and whose figure that is, in words (a phrase that follows "the lead is").

    From a plan: the start-up its option bills each day (:attr:`LaunchSpec.planned_lead_min`, its
    ``service_day.start_up_min``), its parts said where deploy knows the weights and counts the
    same (:func:`schedule_lead_min`); where deploy does not know them (the plan's model not read
    here) the plan's figure all the same, never deploy's 30 min bound called the plan's; where deploy
    counts otherwise (another layout of replicas on an instance: ``--share-gpu``, SkyServe's one
    replica an instance), deploy's count for this launch, the plan's said beside it. A plan that
    states none: deploy's own count, said to be deploy's. A workload file: the one model the plan
    bills by (:func:`schedule_start_up`)."""
    own = schedule_start_up(spec.start_up_weights_gb, spec.dataset_copy_gbps)
    counted, how = own.lead_min(replicas), own.lead_words(replicas)
    billed = spec.planned_lead_min
    plans = _("the start-up the plan bills each day, {how}")
    if billed is None:
        if not spec.planned:
            return counted, plans.format(how=how)
        own_count = _("deploy's own count, as the plan file states no start-up before its hours: {how}")
        return counted, own_count.format(how=how)
    if own.weights_gb is None:
        return billed, _(
            "the start-up the plan bills each day, {lead} min (its service_day.start_up_min, whose parts "
            "the plan's words give; deploy does not know the weights' size to count it again)"
        ).format(lead=billed)
    if counted == billed:
        return counted, plans.format(how=how)
    return counted, _(
        "deploy's count for {k} replica(s) on a new instance, {how}; the plan bills {billed} min before "
        "each day's hours"
    ).format(k=replicas, how=how, billed=billed)


def cron_lines(schedule: Schedule, lead_min: int) -> list[tuple[str, str]]:
    """Cron lines (day of week Sunday 0, as cron and KEDA's cron scaler read them) that start a
    ``schedule``'s service ``lead_min`` early and stop it at its end, as (start, end) pairs: one
    pair for each time of day, its days listed; a gap between two days' hours no longer than the
    lead is run through (as the plan bills it), an end at 24:00 is the next day's 00:00."""
    base = schedule.week_minutes()
    on = base | np.roll(base, -lead_min)
    rises = np.flatnonzero(on & ~np.roll(on, 1))
    falls = np.flatnonzero(~on & np.roll(on, 1))
    groups: dict[tuple[int, int], tuple[set[int], set[int]]] = {}
    for r in rises.tolist():
        later = falls[falls > r]
        f = int(later[0]) if later.size else int(falls[0])
        days = groups.setdefault((r % 1440, f % 1440), (set(), set()))
        days[0].add(r // 1440)
        days[1].add(f // 1440)

    def line(minute: int, days: set[int]) -> str:
        return (
            f"{minute % 60} {minute // 60} * * {','.join(str(d) for d in sorted((d + 1) % 7 for d in days))}"
        )

    return [(line(a, starts), line(b, ends)) for (a, b), (starts, ends) in sorted(groups.items())]


#: The output line of a vLLM batch job (vllm_batch.py, which runs the server of :attr:`EngineLaunch.argv`
#: once a shard and sends it the shard's requests) is the one vLLM's own batch runner writes, so that
#: tools made for it read ours: an input line is an OpenAI Batch API request, ``{"custom_id": …,
#: "method": "POST", "url": "/v1/chat/completions", "body": {…}}``; an output line ``{"id": …,
#: "custom_id": …, "response": {"status_code": …, "request_id": …, "body": {…}}, "error": …}``. As vLLM
#: documents it at 0.11.1 (docs.vllm.ai/en/v0.11.1/cli/run-batch/) and 0.15.0
#: (docs.vllm.ai/en/v0.15.0/api/vllm/entrypoints/openai/run_batch/), the two around the pinned 0.14.0;
#: source: vllm-project/vllm, vllm/entrypoints/openai/run_batch.py (``BatchRequestInput``,
#: ``BatchRequestOutput``, ``make_error_request_output``). The runner itself is not used: it loads the
#: engine once per run, and a shard's resumable chunks would each be a run.

#: Tokens a batch job's engine takes beyond the prompt and answer the workload counts, for the chat
#: template a /v1/chat/completions request is wrapped in: role headers and a default system
#: message, a few dozen tokens in the templates of Llama 3.1 Instruct ("Cutting Knowledge Date:
#: December 2023 / Today Date: …" in a system header; meta-llama/Llama-3.1-8B-Instruct,
#: tokenizer_config.json ``chat_template``) and Qwen2.5 Instruct ("You are Qwen, created by Alibaba
#: Cloud. You are a helpful assistant."; Qwen/Qwen2.5-7B-Instruct, tokenizer_config.json), read
#: 2026-12-06. Without it a prompt of exactly ``inputs.seq_len`` tokens is refused (vLLM: "maximum
#: context length is N tokens. However, you requested N + 30"). The engine's KV cache is shared, so
#: a larger cap costs nothing but the one request of that length it must hold to start.
CHAT_TEMPLATE_TOKENS = 64

#: The engine run when the workload names none: vLLM, as the serving simulation takes it.
DEFAULT_ENGINE = "vllm"

#: Each engine's gauges of requests running and waiting, on ``/metrics`` at its serving port: vLLM
#: ``vllm:num_requests_running`` / ``vllm:num_requests_waiting`` (``vllm/engine/metrics.py``,
#: ``vllm/v1/metrics/loggers.py``; vLLM "Production Metrics", docs.vllm.ai/en/latest/usage/metrics.html),
#: SGLang ``sglang:num_running_reqs`` / ``sglang:num_queue_reqs`` once started with ``--enable-metrics``
#: (``python/sglang/srt/metrics/collector.py`` ``SchedulerMetricsCollector``; SGLang "Production
#: Metrics", docs/references/production_metrics.md).
IN_FLIGHT_GAUGES = {
    "vllm": ("vllm:num_requests_running", "vllm:num_requests_waiting"),
    "sglang": ("sglang:num_running_reqs", "sglang:num_queue_reqs"),
}
#: Said where an engine's autoscaler falls back to GPU utilisation (``{why}``: why its requests in
#: flight per replica are not known).
ON_GPU_UTILISATION = N_(
    "the autoscaler scales on GPU utilisation, not on the engine's requests in flight (their target "
    "per replica is not known: {why}); it may run near its maximum at a light load"
)
#: SGLang's Prometheus metrics came in November 2024 (sgl-project/sglang pull request 1853, "support
#: prometheus metrics"), the scheduler's two gauges with ``SchedulerMetricsCollector`` (pull request
#: 1981, "Simplify prometheus metrics", merged 2024-11-10), so in every release from 0.4.0
#: (December 2024); an older pin keeps GPU utilisation.
_SGLANG_GAUGES_SINCE = (0, 4, 0)

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}


def _numbers(version: str) -> tuple[int, int, int]:
    found = _VERSION.match(version)
    assert found is not None  # ENGINE_PIN's version starts with major.minor
    return int(found[1]), int(found[2]), int(found[3] or 0)


@dataclass(frozen=True, kw_only=True)
class EngineLaunch:
    """One replica of the engine: what to run and with which settings."""

    engine: str
    """``vllm`` or ``sglang``."""
    version: str
    """The release run (``0.8.5``)."""
    version_stated: bool
    """False: the workload named none and :data:`NEWEST_KNOWN` is pinned."""
    engine_stated: bool
    """False: the workload named no engine and :data:`DEFAULT_ENGINE` runs."""
    model_id: str
    """The Hugging Face Hub model id (checked by LaunchSpec against the Hub's grammar)."""
    tensor_parallel: int
    max_model_len: int | None
    """Tokens of prompt plus answer; None: the model's own limit."""
    context_why: str = ""
    """Where :attr:`max_model_len` comes from, for the README (:func:`_context`)."""
    memory_fraction: float | None
    """Share of each GPU's memory the engine takes (weights, KV cache and, for vLLM, activations):
    the one the estimate sized it in (:func:`_memory_fraction`); None: the engine's own default,
    which depends on a GPU not named (SGLang's)."""
    prefix_caching: bool | None
    """None: the engine's default at its version."""
    base_model_id: str | None = None
    """The preset's pretrained checkpoint where :attr:`model_id` is its instruction-tuned one
    (:data:`gpuplan.deploy.hub.INSTRUCT_MODEL_IDS`), which the README names; None otherwise."""
    chat: bool | None = None
    """Whether :attr:`model_id` takes chat requests (its tokenizer has a chat template): False where
    known not to, None where not known."""

    @property
    def words(self) -> str:
        """``vLLM 0.8.5``."""
        return f"{_NAMES[self.engine]} {self.version}"

    @property
    def image(self) -> str:
        # A local version label (``0.8.5+cu121``, a pip build) is no image tag: the release's.
        release = self.version.split("+", 1)[0]
        if self.engine == "vllm":
            return f"vllm/vllm-openai:v{release}"
        numbers = _numbers(release)
        if numbers >= (0, 5, 0):
            return f"lmsysorg/sglang:v{release}"
        return f"lmsysorg/sglang:v{release}-{'cu126' if numbers >= (0, 4, 8) else 'cu124'}"

    @property
    def entrypoint(self) -> list[str]:
        """What the container runs before :attr:`args`: vLLM's image runs its API server itself."""
        if self.engine == "vllm":
            return ["python3", "-m", "vllm.entrypoints.openai.api_server"]
        return ["python3", "-m", "sglang.launch_server"]

    @property
    def image_runs_entrypoint(self) -> bool:
        """The image's own entry point is :attr:`entrypoint` (vLLM's), so a container passes args only."""
        return self.engine == "vllm"

    @property
    def args(self) -> list[str]:
        fraction = [] if self.memory_fraction is None else [f"{self.memory_fraction:.3g}"]
        if self.engine == "vllm":
            return ["--model", self.model_id, "--port", str(ENGINE_PORT), *self._vllm_settings()]
        args = ["--model-path", self.model_id, "--host", "0.0.0.0", "--port", str(ENGINE_PORT)]
        args += ["--tp", str(self.tensor_parallel)]
        if self.max_model_len is not None:
            args += ["--context-length", str(self.max_model_len)]
        if fraction:
            args += ["--mem-fraction-static", *fraction]
        if self.prefix_caching is False:
            args.append("--disable-radix-cache")  # the radix cache is on unless disabled
        if self.in_flight_gauges is not None:
            args.append("--enable-metrics")  # /metrics, off by default, for the autoscaler
        return args

    def _vllm_settings(self) -> list[str]:
        """vLLM's engine arguments of the plan's settings (a service's and a batch job's)."""
        args = ["--tensor-parallel-size", str(self.tensor_parallel)]
        if self.max_model_len is not None:
            args += ["--max-model-len", str(self.max_model_len)]
        if self.memory_fraction is not None:
            args += ["--gpu-memory-utilization", f"{self.memory_fraction:.3g}"]
        if self.prefix_caching:
            args.append("--enable-prefix-caching")
        elif self.prefix_caching is False and _numbers(self.version) >= (0, 8, 0):
            args.append("--no-enable-prefix-caching")  # on by default from V1 (0.8)
        return args

    @property
    def batch_args(self) -> list[str]:
        """The arguments vllm_batch.py starts vLLM's server with (after its ``--``): the model and
        the plan's engine settings; the script adds the host and port (127.0.0.1, a free one)."""
        assert self.engine == "vllm"  # batch_engine_launch runs vLLM only
        return ["--model", self.model_id, *self._vllm_settings()]

    @property
    def in_flight_gauges(self) -> tuple[str, str] | None:
        """The engine's gauges of requests running and waiting on its ``/metrics`` at this version
        (:data:`IN_FLIGHT_GAUGES`); None: a version from before SGLang published them (0.4)."""
        if self.engine == "sglang" and _numbers(self.version) < _SGLANG_GAUGES_SINCE:
            return None
        return IN_FLIGHT_GAUGES[self.engine]

    @property
    def argv(self) -> list[str]:
        """The whole command line, as a shell or SkyPilot's ``run`` starts it."""
        return [*self.entrypoint, *self.args]


def engine_launch(spec: LaunchSpec, *, kv_tokens: int | None = None) -> EngineLaunch | None:
    """The engine ``spec``'s service runs, or None where it keeps serve.py (:func:`serve_py_reason`).

    ``kv_tokens``: the KV cache one replica holds where the caller counted it itself (``simulate
    share``: the memory its packing gives the replica) and ``spec`` carries no engine slots; the
    longest request is then capped by :func:`_context`'s rule on it, as deploy caps it."""
    # A batch job serves no requests: its engine, where it has one, is batch_engine_launch's.
    if spec.batch_inference:
        return None
    return _launch(spec, kv_tokens)


def batch_engine_launch(spec: LaunchSpec) -> EngineLaunch | None:
    """vLLM, run by vllm_batch.py (one server a shard, sent the shard's requests), for a batch job
    (an inference workload without a ``serving:`` block) whose model a service of it would run on an engine: a
    decoder LLM with a Hugging Face Hub id; None for any other batch job (it runs batch.py) and for
    anything not a batch job. No serving block names an engine, so vLLM at :data:`NEWEST_KNOWN`
    runs, with the settings a service of the model gets."""
    if not spec.batch_inference:
        return None
    return _launch(spec)


def _launch(spec: LaunchSpec, kv_tokens: int | None = None) -> EngineLaunch | None:
    if spec.task != "infer" or spec.model_family != "decoder" or spec.hf_model_id is None:
        return None
    serving = spec.serving
    pin = serving.engine if serving and serving.engine else DEFAULT_ENGINE
    found = ENGINE_PIN.fullmatch(pin)
    assert found is not None  # ServingDeployment checked it
    engine, version = found["name"], found["version"]
    context, why = _context(spec, kv_tokens)
    share = serving.share_gpu if serving else 1
    fraction = _memory_fraction(spec, engine, version, share)
    if fraction is None and share > 1:
        # each replica would take the engine's whole default share of the GPU it shares
        raise DeployError.worded(
            N_(
                "share_gpu {share}: {engine}'s share of GPU memory (--mem-fraction-static) depends on the "
                "GPU's memory, and no GPU is named; name it (--gpu) so that each replica is started at "
                "its 1/{share}"
            ),
            share=share,
            engine=_NAMES[engine],
        )
    return EngineLaunch(
        engine=engine,
        version=version or NEWEST_KNOWN[engine],
        version_stated=version is not None,
        engine_stated=bool(serving and serving.engine),
        model_id=spec.hf_model_id,
        tensor_parallel=spec.tensor_parallel,
        max_model_len=context,
        context_why=why,
        memory_fraction=fraction,
        prefix_caching=serving.prefix_caching if serving else None,
        base_model_id=spec.hf_base_model_id,
        chat=spec.chat_template,
    )


def _memory_fraction(spec: LaunchSpec, engine: str, version: str | None, share: int) -> float | None:
    """The share of each GPU's memory the engine is started at: the one the estimate and the serving
    simulation sized its KV cache in (``perf.engines.engine_defaults`` for the engine, the version
    the workload states — none stated: :data:`NEWEST_KNOWN`'s, pinned here too — the GPU and the
    tensor parallelism), split among the ``share`` replicas time-sharing the GPU as the plan splits
    the memory. vLLM's is 0.9 on every GPU; SGLang's depends on the GPU's memory and the tensor
    parallelism, so without a GPU named it is None (the engine's own default, one replica to a
    GPU; several need the GPU named, refused by :func:`engine_launch`)."""
    gpu = spec.gpu_info
    if gpu is None:
        if engine != "vllm":
            return None
        fraction = ESTIMATOR_MEMORY_FRACTION  # every vLLM row's (perf/engines.py)
    else:
        stated = _numbers(version)[:2] if version is not None else None
        fraction = engine_defaults(gpu, engine, stated, tensor_parallel=spec.tensor_parallel).memory_fraction
    return round(fraction / share, 3)


def mainland_notes(spec: LaunchSpec) -> list[str]:
    """The README's paragraphs for a launch in mainland China: Docker Hub's images, then the Hugging
    Face Hub's weights for an engine (none elsewhere), as every target says them."""
    from gpuplan.deploy.images import registry_note

    return [n for n in (registry_note(spec.provider, spec.region), hub_note(spec)) if n]


def hub_note(spec: LaunchSpec) -> str:
    """A README sentence where an engine service runs in mainland China, from where the Hugging Face
    Hub (huggingface.co) is often unreachable: the weights must come another way; said as a condition
    where the region is unknown and the provider has mainland regions ('' elsewhere).
    vLLM reads ModelScope with ``VLLM_USE_MODELSCOPE=True`` (vLLM "Environment Variables",
    docs.vllm.ai; it needs the ``modelscope`` package, which the vLLM image does not carry), SGLang
    with ``SGLANG_USE_MODELSCOPE=true`` (SGLang "Use Models From ModelScope",
    docs.sglang.io/supported_models/modelscope.html); ``HF_ENDPOINT`` points huggingface_hub at
    another endpoint (huggingface_hub "Environment variables")."""
    from gpuplan.deploy.images import in_mainland_china, maybe_mainland_china

    launch = engine_launch(spec)
    batch = batch_engine_launch(spec)
    if (launch or batch) is None:
        return ""
    if maybe_mainland_china(spec.provider, spec.region):
        # the region unknown, on a provider with mainland regions: said as a condition
        return _(
            "If this runs in a mainland China region of {provider} (no region is named), "
            "huggingface.co is often unreachable from there, and {who} downloads "
            "`{model}` from it when it starts: put the weights on a volume the pods mount and point the "
            "engine at that path, set HF_ENDPOINT to a mirror you trust, or read them from ModelScope "
            "({modelscope}, with the `modelscope` package in your image and ModelScope's id of the model)."
        ).format(
            provider=spec.provider,
            who=_("each shard of the job") if batch is not None else _("each replica"),
            model=batch.model_id if batch is not None else launch.model_id if launch is not None else "",
            modelscope="VLLM_USE_MODELSCOPE=True"
            if batch is not None or (launch is not None and launch.engine == "vllm")
            else "SGLANG_USE_MODELSCOPE=true",
        )
    if not in_mainland_china(spec.provider, spec.region):
        return ""
    if batch is not None:
        # a batch job's shards (pods, containers, nodes), each starting vLLM's server, which reads
        # ModelScope
        return _(
            "Each shard of the job downloads `{model}` from the Hugging Face Hub when it starts, and "
            "huggingface.co is often unreachable from mainland China ({provider} {region}): put the "
            "weights on a volume the shards mount and give that path as --model, set HF_ENDPOINT to a "
            "mirror you trust, or read them from ModelScope ({modelscope}, with the `modelscope` package "
            "in your image and ModelScope's id of the model)."
        ).format(
            model=batch.model_id,
            provider=spec.provider,
            region=spec.region,
            modelscope="VLLM_USE_MODELSCOPE=True",
        )
    assert launch is not None
    modelscope = "VLLM_USE_MODELSCOPE=True" if launch.engine == "vllm" else "SGLANG_USE_MODELSCOPE=true"
    return _(
        "Each replica downloads `{model}` from the Hugging Face Hub when it starts, and huggingface.co is "
        "often unreachable from mainland China ({provider} {region}): put the weights on a volume the "
        "pods mount and point the engine at that path, set HF_ENDPOINT to a mirror you trust, or serve "
        "from ModelScope ({modelscope}, with the `modelscope` package in your image and ModelScope's id "
        "of the model)."
    ).format(model=launch.model_id, provider=spec.provider, region=spec.region, modelscope=modelscope)


#: A note where one replica's KV cache is not known (``{why}``: why), so the engine's longest request
#: is not checked against it.
UNCHECKED_CONTEXT = N_(
    "the engine's longest request is not checked against what one replica's KV cache holds ({why}); "
    "an engine whose cache cannot hold it refuses to start"
)
#: The same, where the engine is capped at the serving block's request for it (:func:`_context`).
_CAPPED_CONTEXT = N_(
    "the engine takes requests of up to {tokens:,} tokens (the serving block's prompt + answer), not the "
    "model's own {limit:,}: what one replica's KV cache holds is not known ({why}), and an engine whose "
    "cache cannot hold its longest request refuses to start"
)


def unchecked_context(spec: LaunchSpec, why: str) -> str:
    """The line said where ``spec``'s engine was not sized on one replica's KV cache (``why``: why
    not): the cap it is started with where that is below the model's own limit, else that its
    longest request is not checked. The command line prints it, the service writes it to NOTE.txt."""
    launch = engine_launch(spec)
    limit = spec.model_context_limit
    if launch is not None and launch.max_model_len is not None and limit and launch.max_model_len < limit:
        return _(_CAPPED_CONTEXT).format(tokens=launch.max_model_len, limit=limit, why=why)
    return _(UNCHECKED_CONTEXT).format(why=why)


#: vLLM and SGLang allocate the KV cache in blocks (vLLM's default block size, 16 tokens): a cap
#: that the cache must hold is rounded down to whole blocks.
_KV_BLOCK_TOKENS = 16


def _context(spec: LaunchSpec, kv_tokens: int | None = None) -> tuple[int | None, str]:
    """The longest request (prompt + answer tokens) the engine is started to accept, and why.

    Requests vary: the serving block's prompt and answer tokens are the plan's mean, and an engine
    capped at their sum refuses (vLLM: HTTP 400) or cuts short every longer one. So the cap is the
    longest request the service was sized on where a trace was given, else the model's own limit,
    never above the model's limit, nor above the KV cache one replica holds (an engine whose cache
    cannot hold one request of its cap refuses to start). Where that cache was not counted
    (:attr:`LaunchSpec.engine_slots` None: no GPU named, or the workload could not be read), the
    model's own limit is not written, as an engine whose cache is smaller would never start: the
    serving block's sum stands, the requests the plan priced and its estimate found to fit, and the
    README says so. So it does where the model states no limit.

    A batch job's requests are the workload's samples: the cap is their inputs.seq_len, the prompt
    and answer the plan priced, plus inputs.output_tokens where the job generates, plus
    :data:`CHAT_TEMPLATE_TOKENS` for the chat template (never above the model's limit), so that an
    engine of a long-context model is not refused a start on a GPU whose KV cache holds the plan's
    requests but not the model's limit; vLLM answers a longer request of a batch job with an error
    line of its own.

    ``kv_tokens``: one replica's KV cache as the caller counted it, where ``spec`` has no engine
    slots (``simulate share``'s packing): the cap is then the model's limit within it, as above."""
    serving = spec.serving
    limit = spec.model_context_limit
    priced = (spec.seq_len or 0) + (spec.output_tokens or 0)
    if spec.batch_inference and spec.seq_len and (limit is None or priced <= limit):
        # a chat request's template adds its own tokens to the prompt the workload counts
        tokens = priced + CHAT_TEMPLATE_TOKENS
        if spec.output_tokens:
            why = _(
                "the workload's inputs.seq_len and inputs.output_tokens, the prompt and answer the plan "
                "priced, and {n} for a chat template's own tokens; a longer request gets an error in its "
                "output line"
            )
        else:
            why = _(
                "the workload's inputs.seq_len, the prompt and answer the plan priced, and {n} for a chat "
                "template's own tokens; a longer request gets an error in its output line"
            )
        return (tokens if limit is None else min(tokens, limit)), why.format(n=CHAT_TEMPLATE_TOKENS)
    sizing = spec.engine_slots
    kv = sizing.kv_tokens if sizing is not None else kv_tokens
    longest = sizing.longest_request if sizing is not None else None
    if sizing is not None and longest is not None:
        want = longest
        why = _("the longest request in the trace {trace}").format(trace=sizing.trace)
        if limit is not None and want > limit:
            want = limit
            why = _(
                "the model's own limit (its config's positions); the trace's longest request, {longest} "
                "tokens, is longer and would be refused"
            ).format(longest=longest)
    elif (
        sizing is None
        and kv is None
        and limit is not None
        and (planned := _priced_request(spec))
        and planned < limit
    ):
        # Not the model's limit: the cache it must hold was not counted (vLLM raises at start-up
        # where one request of max_model_len does not fit its KV cache, and the pod crash-loops).
        want = planned
        why = _(
            "the serving block's prompt + answer tokens: one replica's KV cache was not counted (no GPU "
            "named, or the workload could not be read), so not the model's own limit ({limit:,} tokens), "
            "which an engine whose cache cannot hold it refuses to start with; a longer request is refused"
        ).format(limit=limit)
    elif limit is not None:
        want, why = limit, _("the model's own limit (its config's positions)")
    elif serving and serving.prompt_tokens and serving.output_tokens:
        want = serving.prompt_tokens + serving.output_tokens
        why = _(
            "the serving block's prompt + answer tokens, as the model states no limit: a longer request "
            "is refused; give deploy --trace FILE.csv to size it on your traffic"
        )
    elif spec.seq_len:
        want, why = spec.seq_len, _("the workload's inputs.seq_len, as the model states no limit")
    else:
        return None, ""
    if kv and want > kv:  # 0: no request fits, which the fit check refuses (unless forced)
        want = max(_KV_BLOCK_TOKENS, kv // _KV_BLOCK_TOKENS * _KV_BLOCK_TOKENS)
        why = _(
            "as many tokens as one replica's KV cache holds (the estimate's {kv:,}): a longer request is "
            "refused"
        ).format(kv=kv)
    return want, why


def _priced_request(spec: LaunchSpec) -> int | None:
    """Tokens of one request as the serving block states it, prompt + answer; None without one."""
    serving = spec.serving
    if serving and serving.prompt_tokens and serving.output_tokens:
        return serving.prompt_tokens + serving.output_tokens
    return None


def unpriced_share(spec: LaunchSpec) -> str:
    """A sentence where the replicas share each GPU otherwise than the plan priced them
    (``--share-gpu 4`` on a plan of whole GPUs): the plan's figures are not theirs. "" where they
    are, or without a plan."""
    planned = spec.planned_share_gpu
    share = spec.serving.share_gpu if spec.serving else 1
    if planned is None or planned == share:
        return ""

    def sharing(n: int) -> str:
        if n == 1:
            return _("whole GPUs, one replica each")
        return _("{n} replicas time-sharing each GPU").format(n=n)

    return _(
        "The plan was priced for {priced}, and these files run {deployed}: its throughput, latency "
        "and cost figures do not apply to them (plan the workload with serving.share_gpu: {share} "
        "for figures that do)."
    ).format(priced=sharing(planned), deployed=sharing(share), share=share)


def planned_capacity(spec: LaunchSpec) -> float | None:
    """Requests/s one replica carries at full load by the plan's estimate, which the autoscaler's
    load is chosen from beside the serving simulation's replica (:mod:`gpuplan.perf.replica_load`).
    None: no plan's figure for these replicas (a workload file, a plan without it, or replicas
    sharing GPUs otherwise than the plan priced)."""
    capacity = spec.replica_capacity_requests_per_s
    if spec.planned_share_gpu is None or capacity is None or unpriced_share(spec):
        return None
    return capacity


def _newer(version: str, than: str) -> bool:
    """Whether release ``version`` comes after ``than`` (major, minor, patch; a suffix ignored)."""

    def parts(v: str) -> tuple[int, int, int]:
        found = _VERSION.match(v)
        assert found is not None  # ServingDeployment checked the pin
        return int(found[1]), int(found[2]), int(found[3] or 0)

    return parts(version) > parts(than)


def checkpoint_note(launch: EngineLaunch) -> str:
    """A README sentence where the engine loads a preset's instruction-tuned checkpoint in place of
    the pretrained one the preset reproduces, or a checkpoint that takes no chat request ('' else)."""
    if launch.base_model_id is not None:
        return _(
            "`{model}` is the instruction-tuned checkpoint of the preset's architecture (the same shape, "
            "so the plan's figures hold): the pretrained `{base}` is not tuned to follow a prompt and "
            "answers a chat poorly. To run other weights of this architecture (your own fine-tune), name "
            "them with model.hub_id in the workload."
        ).format(model=launch.model_id, base=launch.base_model_id)
    if launch.chat is False:
        return _(
            "`{model}` has no chat template (a pretrained model for plain completion): send it "
            "/v1/completions requests with a prompt; /v1/chat/completions requests are refused."
        ).format(model=launch.model_id)
    return ""


def engine_note(launch: EngineLaunch, unpriced: str = "") -> str:
    """A README paragraph: which engine runs, at which version, and that the plan's figures are its
    (``unpriced``: else why they are not, :func:`unpriced_share`)."""
    said = _("The service runs {engine} ({image}) serving the Hugging Face model `{model}`.").format(
        engine=launch.words, image=launch.image, model=launch.model_id
    )
    parts = [said]
    if checkpoint := checkpoint_note(launch):
        parts.append(checkpoint)
    if not launch.engine_stated:
        parts.append(
            _("The workload names no serving engine (serving.engine): vLLM runs, as gpuplan takes it.")
        )
    if not launch.version_stated:
        parts.append(
            _(
                "The workload names no engine version: {engine} is pinned, the newest release whose "
                "scheduling gpuplan's estimate knows. Without a version the plan took the engine not "
                "to overlap its scheduling with the GPU (the slower case), so its figures are if "
                "anything conservative here; pin yours as serving.engine: {example}."
            ).format(engine=launch.words, example=f"{launch.engine}=={launch.version}")
        )
    if launch.version_stated and _newer(launch.version, NEWEST_KNOWN[launch.engine]):
        # vllm==9.9.9 had been written as an image tag without a word: a typo, or a release the
        # estimate has not seen
        parts.append(
            _(
                "{engine} is newer than any release gpuplan's estimate knows ({newest}): the plan took "
                "it to schedule as {newest} does; check that the image tag exists before you apply."
            ).format(engine=launch.words, newest=NEWEST_KNOWN[launch.engine])
        )
    parts.append(
        unpriced
        or (
            _(
                "The plan's throughput and latency figures are for this engine with these settings "
                "(tensor parallel {tp}, {fraction} of GPU memory); another engine or version performs "
                "differently."
            )
            if launch.memory_fraction is not None
            else _(
                "The plan's throughput and latency figures are for this engine with these settings "
                "(tensor parallel {tp}, its default share of GPU memory, which depends on the GPU: no GPU "
                "is named); another engine or version performs differently."
            )
        ).format(tp=launch.tensor_parallel, fraction=f"{launch.memory_fraction or 0:.3g}")
    )
    if launch.max_model_len is not None:
        parts.append(
            _(
                "The engine accepts requests of up to {tokens:,} tokens, prompt and answer together: {why}."
            ).format(tokens=launch.max_model_len, why=launch.context_why)
        )
    parts.append(
        _(
            "Gated models (Llama, Mistral, Gemma) need a Hugging Face token with access: put it in the "
            "Secret `hf-token` (key `token`) or the HF_TOKEN environment variable."
        )
    )
    return sentences(*parts)


def unread_config_warning(spec: LaunchSpec) -> str | None:
    """A warning for stderr where an inference plan's ``hf_config`` could not be read here and the
    plan recorded nothing of its model (:attr:`LaunchSpec.unread_hf_config`): whether it has Hub
    weights an engine could run is not known, so the files run serve.py's or batch.py's randomly
    initialised stand-in; naming the file and how to get the engine. Also where a decoder's config
    was read (or a preset named) but no Hugging Face weights are: the plan priced it on an engine.
    None otherwise (a training job's files are the same either way)."""
    if spec.task != "infer" or spec.model_entry_point:
        return None
    runner = "batch.py" if spec.batch_inference else "serve.py"
    if spec.unread_hf_config is None:
        if spec.model_family != "decoder" or spec.hf_model_id is not None:
            return None
        # a decoder an engine would serve, but no weights named (a config.json downloaded from the
        # Hub has no _name_or_path; a paper's preset has no published weights)
        return _(
            "{source} names no Hugging Face weights an engine could load: these files run {runner}'s "
            "randomly initialised stand-in, not the model on an engine as the plan priced it; name the "
            "weights with model.hub_id in the workload (a checkpoint of this architecture), plan again "
            "and deploy again"
        ).format(source=spec.model_source, runner=runner)
    return _(
        "the model's hf_config {path} is not here (moved or deleted, or outside the plan file's folder) "
        "and the plan records no Hugging Face id of it (made before plans recorded one): these files "
        "run {runner}'s randomly initialised stand-in, not the model's weights on an engine; put the "
        "config back at that path, or plan the workload again (`gpuplan plan WORKLOAD --json`), and "
        "deploy again"
    ).format(path=spec.unread_hf_config, runner=runner)


def serve_py_reason(spec: LaunchSpec) -> str:
    """Why an inference service keeps serve.py instead of a serving engine ("" for training)."""
    if spec.task != "infer":
        return ""
    if spec.model_entry_point:
        return _(
            "serve.py, not a serving engine: the model is your own code ({entry}), which vLLM and "
            "SGLang cannot load by a Hugging Face id."
        ).format(entry=spec.model_entry_point)
    if spec.model_family not in (None, "decoder"):
        return _(
            "serve.py, not a serving engine: {source} is not a decoder LLM, which is what vLLM and "
            "SGLang serve."
        ).format(source=spec.model_source)
    if spec.hf_model_id is None:
        return _(
            "serve.py, not a serving engine: {source} has no Hugging Face model id whose weights an "
            "engine could load; name them with model.hub_id in the workload (a config.json names its own "
            "in _name_or_path, which one downloaded from the Hub does not carry) and plan again."
        ).format(source=spec.model_source)
    return _("serve.py, not a serving engine: {source} is not known to be a decoder LLM.").format(
        source=spec.model_source
    )
