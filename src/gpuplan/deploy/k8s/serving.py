"""Inference manifests: Deployment + Service, scaled by an HPA or by KEDA, with an optional MIG
slice or time-sliced share of a GPU per replica.

What the autoscaler scales on:

- A serving engine (vLLM, SGLang: :mod:`gpuplan.deploy.engine`) scales on its own count of requests
  in flight, running plus waiting, averaged over the replicas and held at what one replica holds at
  the load the plan sizes it for (``LaunchSpec.engine_slots``: Little's law, that load × the time a
  request spends on the replica at it; the load SkyServe's ``target_qps_per_replica`` holds, so the
  two targets scale at the same load) — what ``gpuplan simulate autoscale --policy queue`` replays.
  The engines publish the two gauges on ``/metrics`` at the serving port: vLLM
  ``vllm:num_requests_running`` and ``vllm:num_requests_waiting`` (``vllm/engine/metrics.py``,
  ``vllm/v1/metrics/loggers.py``; vLLM "Production Metrics",
  https://docs.vllm.ai/en/latest/usage/metrics.html), SGLang
  ``sglang:num_running_reqs`` and ``sglang:num_queue_reqs`` once started with ``--enable-metrics``
  (``python/sglang/srt/metrics/collector.py`` ``SchedulerMetricsCollector``; SGLang "Production
  Metrics", docs/references/production_metrics.md). A PodMonitor (Prometheus Operator,
  ``monitoring.coreos.com/v1``) has Prometheus scrape them, with the pod's ``namespace`` and ``pod``
  as labels. GPU utilisation would not do: an engine keeps a kernel running whenever any sequence
  decodes, so an HPA on it runs near its maximum at a light load.
- serve.py, and an engine whose slots are not known, scale on GPU utilisation: DCGM's
  ``DCGM_FI_DEV_GPU_UTIL`` (percent), exported per GPU by NVIDIA's dcgm-exporter (part of the GPU
  Operator) with the pod it is attached to as labels. Prometheus renames the exporter's
  ``pod``/``namespace`` labels to ``exported_pod``/``exported_namespace`` when it scrapes with
  ``honorLabels: false`` (the default); adjust the two names if your ServiceMonitor honours labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gpuplan.deploy.base import GeneratedFile, GenerateOptions, commented
from gpuplan.deploy.engine import (
    ENGINE_HEALTH_PATH,
    ENGINE_PORT,
    ENGINE_STARTUP_S,
    K8S_SCALE_DOWN_S,
    STARTUP_MARGIN,
    STARTUP_STEP_S,
    EngineLaunch,
    cold_start,
    cold_start_s,
    cron_lines,
    engine_launch,
    schedule_lead,
    startup_seconds,
)
from gpuplan.deploy.hub import gated
from gpuplan.deploy.k8s.nodes import placement
from gpuplan.deploy.k8s.pods import (
    CODE_DIR,
    code_configmap,
    container_image,
    gpu_resources,
    host_words,
    labels,
    pod_spec,
)
from gpuplan.deploy.spec import DISK_HEADROOM, LaunchSpec, ServingDeployment, weights_dtype_words
from gpuplan.deploy.yamlout import dump_documents
from gpuplan.i18n.messages import _, ngettext
from gpuplan.i18n.phrases import sentences
from gpuplan.start_up import ENGINE_START_S, INSTANCE_BOOT_S
from gpuplan.units import ASSUMED_DISK_GBPS

__all__ = [
    "GPU_UTIL_METRIC",
    "StartupBudget",
    "engine_container",
    "in_flight_target",
    "model_cache_volume",
    "model_cache_words",
    "quantity",
    "replicas_per_node",
    "serving_manifests",
    "slow_start_warning",
    "startup_budget",
    "startup_words",
    "token_ref",
]

GPU_UTIL_METRIC = "DCGM_FI_DEV_GPU_UTIL"
SERVE_PORT = 8000
#: Where the KEDA trigger finds Prometheus: the kube-prometheus-stack default service. Edit to yours.
PROMETHEUS_URL = "http://prometheus-operated.monitoring.svc:9090"
#: Points the GPU Operator's device plugin at the time-slicing ConfigMap (NVIDIA GPU Operator docs,
#: "Time-Slicing GPUs in Kubernetes").
_CLUSTER_POLICY_PATCH = (
    '{"spec": {"devicePlugin": {"config": {"name": "time-slicing-config", "default": "any"}}}}'
)


def _serving(spec: LaunchSpec) -> ServingDeployment:
    return spec.serving or ServingDeployment()


#: Where the engines keep downloaded weights: the Hugging Face cache of the images' root user (vLLM
#: "Deploying with Docker" mounts ``~/.cache/huggingface`` there; SGLang's compose.yaml the same).
HF_CACHE_DIR = "/root/.cache/huggingface"
#: The Secret holding the Hugging Face token (key ``token``), created by the user; required for a
#: gated model (:func:`token_ref`), optional for the others, so that they start without it.
HF_TOKEN_SECRET = "hf-token"


def token_ref(spec: LaunchSpec) -> dict[str, Any]:
    """The container's ``HF_TOKEN`` from the Secret. Required where the model is known to be gated
    (:func:`gpuplan.deploy.hub.gated`): "None of a Pod's containers will start until all non-optional
    Secrets are available" (Kubernetes, "Secrets", Optional Secrets,
    https://kubernetes.io/docs/concepts/configuration/secret/), so a missing token shows at once as
    the pod's CreateContainerConfigError, not as an engine that starts, fails to download the
    weights (HTTP 401) and restarts without end. Optional otherwise: an open model needs none."""
    required = gated(spec.hf_model_id) is True
    ref = {"name": HF_TOKEN_SECRET, "key": "token", "optional": not required}
    return {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": ref}}


#: The startup probe polls every STARTUP_STEP_S (10 s) for the budget :func:`startup_budget` sizes,
#: at least ENGINE_STARTUP_S (30 min), before liveness takes over: downloading and loading the
#: weights and capturing CUDA graphs takes minutes.
_STARTUP_PERIOD_S = STARTUP_STEP_S


@dataclass(frozen=True, kw_only=True)
class StartupBudget:
    """How long the startup probe waits for an engine replica, and what it was sized from."""

    seconds: int
    """The probe's budget: a whole number of its periods."""
    replicas: int
    """Replicas whose pods start together on one node and share its disk (a replacement node's)."""
    cold_s: float | None
    """Seconds those replicas take to serve by the plan's own model of a replacement (its spot
    ``down_min_per_reclaim`` less the new instance's boot and image pull): the engine's start
    (:data:`~gpuplan.units.ENGINE_START_S`) and ``replicas`` × the weights read at
    :data:`~gpuplan.units.ASSUMED_DISK_GBPS`; None: the weights are not known, and the budget is the
    floor."""
    cache_gb: float | None
    """The disk the weights take on one node, GB: a copy per pod in its emptyDir, ``replicas`` × the
    weights (one copy on a PersistentVolumeClaim); None: not known."""


def replicas_per_node(spec: LaunchSpec) -> int:
    """The service's replicas on one node of the plan's: its GPUs over one replica's, times the
    replicas time-sharing a GPU (``--share-gpu``)."""
    sv = _serving(spec)
    split = spec.tensor_parallel * spec.pipeline_parallel
    return max(1, spec.gpus_per_node // max(1, split)) * max(1, sv.share_gpu)


def startup_budget(spec: LaunchSpec, options: GenerateOptions) -> StartupBudget:
    """The engine's startup probe budget, sized from the cold start of the replicas starting on one
    node together (a new node's, after a spot reclaim or a scale-out): each reads its weights from
    the node's one disk, as the plan's spot model has an instance's replicas do
    (``gpuplan.plan.spot.service_down_h``), × :data:`STARTUP_MARGIN`; at least ENGINE_STARTUP_S."""
    k = replicas_per_node(spec)
    seconds = startup_seconds(spec.weights_gb, k, spec.dataset_copy_gbps)
    if spec.weights_gb is None:
        return StartupBudget(seconds=seconds, replicas=k, cold_s=None, cache_gb=None)
    cache = spec.weights_gb if options.model_cache_pvc else k * spec.weights_gb
    cold = cold_start_s(spec.weights_gb, k, spec.dataset_copy_gbps)
    return StartupBudget(seconds=seconds, replicas=k, cold_s=cold, cache_gb=cache)


def startup_words(spec: LaunchSpec, options: GenerateOptions) -> list[str]:
    """The README's sentences on how long a replica takes to start, how long its startup probe waits
    and the disk its weights take on a node, in the user's language."""
    budget = startup_budget(spec, options)
    minutes = f"{budget.seconds / 60:.0f}"
    if budget.cold_s is None or budget.cache_gb is None or spec.weights_gb is None:
        return [
            _(
                "Each pod's startup probe waits {minutes} min for the engine to download and load the "
                "weights: the model's size is not known here, so that wait is not sized from it; raise "
                "failureThreshold in k8s/deployment.yaml for a large model, or the kubelet restarts a "
                "replica that is still downloading."
            ).format(minutes=minutes)
        ]
    node = spec.instance_type or _("a node")
    new_node = cold_start(spec.weights_gb, spec.dataset_copy_gbps).with_boot()
    start = ngettext(
        "A replica loads {gb:,.1f} GB of weights. One replica runs on each {node}: it serves about "
        "{cold} min after its container starts ({start:.0f} s engine start + {gb:,.1f} GB read at "
        "{rate}). A node the cluster adds takes {boot:.0f} min before that to boot and pull the image "
        "(assumed), {total} min in all, the start-up plan and simulate autoscale count; a node already "
        "up (a warm node pool) skips them.",
        "A replica loads {gb:,.1f} GB of weights. {k} replicas run on each {node} and start together, "
        "reading through its one disk: they serve about {cold} min after their containers start "
        "({start:.0f} s engine start + {k} × {gb:,.1f} GB read at {rate}). A node the cluster adds "
        "takes {boot:.0f} min before that to boot and pull the image (assumed), {total} min in all, the "
        "start-up plan and simulate autoscale count; a node already up (a warm node pool) skips them.",
        budget.replicas,
    ).format(
        gb=spec.weights_gb,
        k=budget.replicas,
        node=node,
        cold=f"{budget.cold_s / 60:.0f}",
        start=ENGINE_START_S,
        rate=disk_rate_words(spec),
        boot=INSTANCE_BOOT_S / 60,
        total=f"{new_node.seconds(budget.replicas) / 60:.0f}",
    )
    wait = _(
        "Each pod's startup probe waits {minutes} min ({margin:g}× that, at least {floor} min: the "
        "download from the Hub may be slower) before the kubelet restarts it."
    ).format(minutes=minutes, margin=STARTUP_MARGIN, floor=ENGINE_STARTUP_S // 60)
    request = _cache_request(spec, options)
    if request is None:
        disk = _("The PersistentVolumeClaim `{claim}` holds one copy: give it at least {gb:,.0f} GB.").format(
            claim=options.model_cache_pvc, gb=math.ceil(budget.cache_gb * (1 + DISK_HEADROOM))
        )
    else:
        disk = ngettext(
            "The pod requests {request} of ephemeral storage for its copy in its emptyDir: the node's "
            "kubelet disk needs {gb:,.0f} GB free for it (`kubectl describe node`, Allocatable "
            "ephemeral-storage), or the pod stays Pending.",
            "Each pod requests {request} of ephemeral storage for its own copy in its emptyDir: the "
            "node's kubelet disk needs {gb:,.0f} GB free for its {k} copies (`kubectl describe node`, "
            "Allocatable ephemeral-storage), or the pods stay Pending; `--model-cache-pvc` keeps one "
            "copy instead.",
            budget.replicas,
        ).format(
            request=request,
            gb=math.ceil(budget.cache_gb * (1 + DISK_HEADROOM)),
            k=budget.replicas,
        )
    return [sentences(start, weights_dtype_words(spec)), wait, disk]


def disk_rate_words(spec: LaunchSpec) -> str:
    """The rate a new node's disk reads the weights at in the cold start, in words: the baseline of
    AWS's default block volume, EBS gp3 (:data:`~gpuplan.units.ASSUMED_DISK_GBPS`), which the plan
    assumes on every provider; said as assumed where the node is not AWS's (its disk's read rate is
    not known to gpuplan)."""
    if spec.dataset_copy_gbps is not None:
        return _("{rate:g} GB/s, the rate you measured (data.copy_gbps)").format(rate=spec.dataset_copy_gbps)
    rate = f"{ASSUMED_DISK_GBPS:g}"
    if spec.provider == "aws":
        return _("{rate} GB/s, the baseline of an EBS gp3 volume, the disk rate the plan assumes").format(
            rate=rate
        )
    if spec.provider:
        return _(
            "{rate} GB/s, AWS EBS gp3's baseline, assumed for this {provider} node, whose disk's read "
            "rate gpuplan does not know"
        ).format(rate=rate, provider=spec.provider)
    return _(
        "{rate} GB/s, AWS EBS gp3's baseline, assumed: gpuplan does not know the node's disk's read rate"
    ).format(rate=rate)


#: ASSUMPTION: a cold start longer than this, 15 min, is said where deploy is run, not only in the
#: README. At its steepest a daily cycle's load (``gpuplan simulate``'s diurnal day, a cosine over
#: 24 h) moves π/24 ≈ 13 % of its trough-to-peak range an hour: about 3 % while a 15-min start runs,
#: which the room an autoscaler keeps on each replica (held below its capacity) can take, against
#: 32 % in a start of 145 min (a 70B model's 8 replicas on one node of B200s), which it cannot.
SLOW_START_S = 15 * 60


def slow_start_warning(spec: LaunchSpec, options: GenerateOptions) -> str | None:
    """deploy's stderr line where the replicas starting on a new node serve only after more than
    :data:`SLOW_START_S` by the README's own cold start (:func:`startup_budget`: from their
    containers' start; the new node's boot, which a warm node pool skips, is said beside it, the whole
    start-up ``gpuplan.start_up`` models, and not held against the limit): an autoscaler with
    such a start cannot follow a daily cycle of load; without ``--model-cache-pvc``, what it does in
    gpuplan's figures (one copy of the weights on a claim, not a copy a pod on the node's disk, and
    no download from the Hub at each start). None for a quicker start, an unknown one (no weights
    known), or a service that runs no engine."""
    if engine_launch(spec) is None:
        return None
    budget = startup_budget(spec, options)
    if budget.cold_s is None or budget.cache_gb is None or spec.weights_gb is None:
        return None
    if budget.cold_s <= SLOW_START_S:
        return None
    new_node = cold_start(spec.weights_gb, spec.dataset_copy_gbps).with_boot()
    fields = {
        "k": budget.replicas,
        "node": _("a new {instance}").format(instance=spec.instance_type)
        if spec.instance_type
        else _("a new node"),
        "cold": f"{budget.cold_s / 60:.0f}",
        "start": ENGINE_START_S,
        "gb": spec.weights_gb,
        "rate": disk_rate_words(spec),
        "boot": INSTANCE_BOOT_S / 60,
        "total": f"{new_node.seconds(budget.replicas) / 60:.0f}",
        "limit": SLOW_START_S // 60,
    }
    # the limit is held against the containers' start (the README's cold start), as SLOW_START_S
    # says; the node's boot, which a warm node pool skips, is said beside it, as the README says it
    line = ngettext(
        "a replica on {node} serves about {cold} min after its container starts ({start:.0f} s engine "
        "start + {gb:,.1f} GB read at {rate}), and the node takes {boot:.0f} min before that to boot and "
        "pull the image (assumed), {total} min in all, the start-up plan and simulate autoscale count: "
        "an autoscaler whose added replicas take more than {limit} min from their container's start to "
        "serve cannot follow a daily cycle of load, since a replica it adds as the load rises serves "
        "that much later (later still where it waits for a new node)",
        "the {k} replicas on {node} serve about {cold} min after their containers start ({start:.0f} s "
        "engine start + {k} × {gb:,.1f} GB read at {rate}), and the node takes {boot:.0f} min before "
        "that to boot and pull the image (assumed), {total} min in all, the start-up plan and simulate "
        "autoscale count: an autoscaler whose added replicas take more than {limit} min from their "
        "containers' start to serve cannot follow a daily cycle of load, since a replica it adds as the "
        "load rises serves that much later (later still where it waits for a new node)",
        budget.replicas,
    ).format(**fields)
    if options.model_cache_pvc:
        return line
    pvc = ngettext(
        "; `--model-cache-pvc NAME` keeps one copy of the weights on an existing PersistentVolumeClaim "
        "(of at least {one:,.0f} GB) that every pod reads, instead of a download from the Hub into the "
        "pod's emptyDir at each start ({all:,.0f} GB of the node's disk), and a claim that reads faster "
        "than {rate_short} GB/s shortens the start",
        "; `--model-cache-pvc NAME` keeps one copy of the weights on an existing PersistentVolumeClaim "
        "(of at least {one:,.0f} GB) that every pod reads, instead of a download from the Hub into each "
        "pod's emptyDir at each start ({k} copies, {all:,.0f} GB of the node's disk), and a claim that "
        "reads faster than {rate_short} GB/s shortens the start",
        budget.replicas,
    ).format(
        one=math.ceil(spec.weights_gb * (1 + DISK_HEADROOM)),
        all=math.ceil(budget.cache_gb * (1 + DISK_HEADROOM)),
        k=budget.replicas,
        rate_short=f"{spec.dataset_copy_gbps or ASSUMED_DISK_GBPS:g}",
    )
    return line + pvc


def _cache_request(spec: LaunchSpec, options: GenerateOptions) -> str | None:
    """The ``ephemeral-storage`` a pod requests for its emptyDir's copy of the weights, with the
    filesystem's headroom (:data:`~gpuplan.deploy.spec.DISK_HEADROOM`), in whole GiB; None: a
    PersistentVolumeClaim holds them, or their size is not known. The scheduler then places a pod
    only where the node's allocatable ephemeral storage holds it beside the pods already there."""
    if options.model_cache_pvc or spec.weights_gb is None:
        return None
    return f"{math.ceil(spec.weights_gb * (1 + DISK_HEADROOM) * 1e9 / 2**30)}Gi"


def model_cache_volume(options: GenerateOptions) -> dict[str, Any]:
    """The engine's weights cache: the user's PersistentVolumeClaim (``--model-cache-pvc``), which
    keeps them across pod starts, or an emptyDir, which a new pod fills by downloading them again."""
    if options.model_cache_pvc:
        return {"name": "model-cache", "persistentVolumeClaim": {"claimName": options.model_cache_pvc}}
    return {"name": "model-cache", "emptyDir": {}}


def model_cache_words(options: GenerateOptions, many: bool) -> str:
    """The README's sentence on where the weights are kept, and what a start costs; ``many``: pods
    of several nodes mount the cache (replicas, shards)."""
    if options.model_cache_pvc:
        if many:
            return _(
                "The model's weights are kept on the PersistentVolumeClaim `{claim}` (mounted at {path}): "
                "create it before applying, ReadWriteMany, since pods on several nodes mount it; the "
                "first pod downloads them, the next ones read them there."
            ).format(claim=options.model_cache_pvc, path=HF_CACHE_DIR)
        return _(
            "The model's weights are kept on the PersistentVolumeClaim `{claim}` (mounted at {path}): "
            "create it before applying; the first pod downloads them, the next ones read them there."
        ).format(claim=options.model_cache_pvc, path=HF_CACHE_DIR)
    return _(
        "Every pod that starts downloads the model's weights again (an emptyDir at {path}): minutes "
        "of a paid GPU node for a large model, and traffic from the Hub. `gpuplan deploy ... "
        "--model-cache-pvc NAME` mounts an existing PersistentVolumeClaim there instead (ReadWriteMany "
        "where pods on several nodes share it)."
    ).format(path=HF_CACHE_DIR)


def engine_container(launch: EngineLaunch, spec: LaunchSpec, options: GenerateOptions) -> dict[str, Any]:
    """The engine's container: its official image (or ``--image``), the plan's settings as arguments,
    the health endpoint probed, the token from a Secret, the weights in a cache volume."""
    health = {"httpGet": {"path": ENGINE_HEALTH_PATH, "port": "http"}}
    container: dict[str, Any] = {"name": "serve", "image": options.image or launch.image}
    if not launch.image_runs_entrypoint:
        container["command"] = launch.entrypoint
    container |= {
        # exec form, no shell: each argument is one word whatever it holds
        "args": launch.args,
        "env": [token_ref(spec)],
        "ports": [{"name": "http", "containerPort": ENGINE_PORT}],
        "startupProbe": {
            **health,
            "periodSeconds": _STARTUP_PERIOD_S,
            "failureThreshold": startup_budget(spec, options).seconds // _STARTUP_PERIOD_S,
        },
        "readinessProbe": {**health, "periodSeconds": 5},
        "livenessProbe": {**health, "periodSeconds": 10, "failureThreshold": 3},
        "resources": gpu_resources(spec, spec.tensor_parallel * spec.pipeline_parallel),
    }
    if (cache := _cache_request(spec, options)) is not None:
        resources = container["resources"]
        resources["requests"] = {**resources.get("requests", {}), "ephemeral-storage": cache}
    return container


def _deployment(spec: LaunchSpec, options: GenerateOptions) -> dict[str, Any]:
    sv = _serving(spec)
    launch = engine_launch(spec)
    if launch is not None:
        pod = pod_spec(
            spec,
            options,
            placement(spec, service=True),
            container=engine_container(launch, spec, options),
            code_files=False,
            # an emptyDir: weights downloaded again by every new pod; --model-cache-pvc keeps them
            volumes=[model_cache_volume(options)],
            mounts=[{"name": "model-cache", "mountPath": HF_CACHE_DIR}],
            # tensor-parallel workers share tensors through /dev/shm (vLLM "Deploying with Docker")
            shm_gib=8,
        )
        return _wrap_deployment(spec, sv, pod)
    container = {
        "name": "serve",
        "image": container_image(spec, options),
        "command": ["python", f"{CODE_DIR}/serve.py"],
        "env": [{"name": "CKPT_DIR", "value": "/checkpoints"}, {"name": "PORT", "value": str(SERVE_PORT)}],
        "ports": [{"name": "http", "containerPort": SERVE_PORT}],
        "readinessProbe": {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 5},
        # a replica's tensor × pipeline split runs in one pod, on GPUs of one node
        "resources": gpu_resources(spec, spec.tensor_parallel * spec.pipeline_parallel),
    }
    pod = pod_spec(
        spec,
        options,
        placement(spec, service=True),
        container=container,
        code_files=True,
        volumes=[{"name": "checkpoints", "emptyDir": {}}],
        mounts=[{"name": "checkpoints", "mountPath": "/checkpoints"}],
        shm_gib=2,
    )
    return _wrap_deployment(spec, sv, pod)


def _wrap_deployment(spec: LaunchSpec, sv: ServingDeployment, pod: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": spec.name, "labels": labels(spec, "serve")},
        "spec": {
            "replicas": sv.launch_replicas,
            "selector": {"matchLabels": labels(spec, "serve")},
            "template": {"metadata": {"labels": labels(spec, "serve")}, "spec": pod},
        },
    }


def _service(spec: LaunchSpec) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": spec.name, "labels": labels(spec, "serve")},
        "spec": {
            "selector": labels(spec, "serve"),
            "ports": [{"name": "http", "port": 80, "targetPort": "http"}],
        },
    }


@dataclass(frozen=True, kw_only=True)
class _Signal:
    """What the autoscaler reads: a per-pod metric and the average per replica it holds."""

    metric: str
    """The custom metric's name, as prometheus-adapter publishes it and the HPA asks for it."""
    target: float
    series: str
    """prometheus-adapter's ``seriesQuery``: the series the metric is made from."""
    namespace_label: str
    pod_label: str
    adapter_query: str
    """prometheus-adapter's ``metricsQuery``: the metric of each pod."""
    keda_query: str
    """KEDA's query: the metric summed over the Deployment's pods."""
    in_flight: bool
    """True: the engine's requests in flight; False: GPU utilisation."""

    @property
    def target_text(self) -> str:
        return quantity(self.target)


def quantity(x: float) -> str:
    """``x`` as a Kubernetes quantity and KEDA threshold: at most three decimals, no exponent."""
    return f"{x:.3f}".rstrip("0").rstrip(".")


def in_flight_target(spec: LaunchSpec) -> float | None:
    """Requests in flight per replica the autoscaler of an engine holds: those on one replica at the
    load the plan sizes it for (:attr:`EngineSlots.in_flight`, to 0.1 of a request), at least 1;
    None: it scales on GPU utilisation (no engine, or its slots not worked out)."""
    launch = engine_launch(spec)
    if spec.engine_slots is None or launch is None or launch.in_flight_gauges is None:
        return None
    return max(1.0, round(spec.engine_slots.in_flight, 1))


def _signal(spec: LaunchSpec) -> _Signal:
    sv = _serving(spec)
    launch = engine_launch(spec)
    pods = f'"{spec.name}-.*"'
    target = in_flight_target(spec)
    if launch is not None and launch.in_flight_gauges is not None and target is not None:
        running, waiting = launch.in_flight_gauges
        # one series per engine process (vLLM's data-parallel engines label theirs): summed per pod
        return _Signal(
            metric=f"{launch.engine}_requests_in_flight",
            target=target,
            series=f'{running}{{namespace!="",pod!=""}}',
            namespace_label="namespace",
            pod_label="pod",
            adapter_query=(
                f"sum({running}{{<<.LabelMatchers>>}}) by (<<.GroupBy>>) + "
                f"sum({waiting}{{<<.LabelMatchers>>}}) by (<<.GroupBy>>)"
            ),
            keda_query=f"sum({running}{{pod=~{pods}}}) + sum({waiting}{{pod=~{pods}}})",
            in_flight=True,
        )
    # KEDA's prometheus trigger defaults to metricType AverageValue: the HPA it creates wants
    # ceil(query / threshold) replicas, so the query sums utilisation over the Deployment's GPUs.
    return _Signal(
        metric=GPU_UTIL_METRIC,
        target=sv.gpu_utilization_target,
        series=f'{GPU_UTIL_METRIC}{{exported_namespace!="",exported_pod!=""}}',
        namespace_label="exported_namespace",
        pod_label="exported_pod",
        adapter_query="avg(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
        keda_query=f"sum({GPU_UTIL_METRIC}{{exported_pod=~{pods}}})",
        in_flight=False,
    )


def _hpa(spec: LaunchSpec, signal: _Signal) -> dict[str, Any]:
    sv = _serving(spec)
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": spec.name, "labels": labels(spec, "serve")},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": spec.name},
            "minReplicas": sv.min_replicas,
            "maxReplicas": sv.max_replicas,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": signal.metric},
                        # The average over the Deployment's pods of each pod's metric.
                        "target": {"type": "AverageValue", "averageValue": signal.target_text},
                    },
                }
            ],
            # Scale down slowly: a GPU replica is expensive to start (image pull, model load).
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": K8S_SCALE_DOWN_S}},
        },
    }


def _adapter_rules(signal: _Signal) -> str:
    """Helm values for prometheus-adapter that publish the signal as a per-pod metric."""
    what = _("prometheus-adapter Helm values: publish {metric} as a per-pod custom metric\nfor the HPA.")
    check = _("Check: {command}").format(
        command="kubectl get --raw "
        f'"/apis/custom.metrics.k8s.io/v1beta1/namespaces/default/pods/*/{signal.metric}"'
    )
    head = commented(what.format(metric=signal.metric))
    return f"""{head}\
#   helm upgrade --install prometheus-adapter prometheus-community/prometheus-adapter -f this-file
# {check}
rules:
  custom:
    - seriesQuery: '{signal.series}'
      resources:
        overrides:
          {signal.namespace_label}: {{resource: namespace}}
          {signal.pod_label}: {{resource: pod}}
      name:
        as: "{signal.metric}"
      metricsQuery: '{signal.adapter_query}'
"""


def _lead(spec: LaunchSpec) -> tuple[int, str]:
    """Minutes before its hours a scheduled service's replicas are started, a new node and the
    replicas on it (:func:`schedule_lead`: the start-up the plan bills), and whose figure that is,
    in words."""
    return schedule_lead(spec, replicas_per_node(spec))


def _scaled_object(spec: LaunchSpec, signal: _Signal) -> dict[str, Any]:
    sv = _serving(spec)
    triggers: list[dict[str, Any]] = [
        {
            "type": "prometheus",
            "metadata": {
                "serverAddress": PROMETHEUS_URL,
                "query": signal.keda_query,
                "threshold": signal.target_text,
            },
        }
    ]
    if sv.schedule is not None:
        # keda.sh/docs/latest/scalers/cron: the fleet from start to end in the zone, none outside
        # it (minReplicaCount 0); the load's trigger adds replicas within the hours
        triggers += [
            {
                "type": "cron",
                "metadata": {
                    "timezone": sv.schedule.time_zone,
                    "start": start,
                    "end": end,
                    "desiredReplicas": str(sv.launch_replicas),
                },
            }
            for start, end in cron_lines(sv.schedule.window, _lead(spec)[0])
        ]
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": spec.name, "labels": labels(spec, "serve")},
        "spec": {
            "scaleTargetRef": {"name": spec.name},
            "minReplicaCount": 0 if sv.schedule is not None else sv.min_replicas,
            "maxReplicaCount": sv.max_replicas,
            "cooldownPeriod": K8S_SCALE_DOWN_S,
            "triggers": triggers,
        },
    }


def _pod_monitor(spec: LaunchSpec) -> dict[str, Any]:
    """Prometheus Operator: scrape each replica's ``/metrics`` on the serving port."""
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": {"name": spec.name, "labels": labels(spec, "serve")},
        "spec": {
            "selector": {"matchLabels": labels(spec, "serve")},
            "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
        },
    }


def _time_slicing_configmap(spec: LaunchSpec) -> dict[str, Any]:
    sv = _serving(spec)
    config = (
        "version: v1\n"
        "sharing:\n"
        "  timeSlicing:\n"
        "    resources:\n"
        "      - name: nvidia.com/gpu\n"
        f"        replicas: {sv.share_gpu}\n"
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "time-slicing-config", "namespace": "gpu-operator"},
        "data": {"any": config},
    }


def _autoscaler_files(spec: LaunchSpec, options: GenerateOptions, signal: _Signal) -> list[GeneratedFile]:
    """The HPA (and prometheus-adapter's values) or KEDA's ScaledObject; for an engine, the
    PodMonitor that has Prometheus scrape it."""
    files = []
    if signal.in_flight:
        assert spec.engine_slots is not None  # _signal's in-flight case
        fields = {
            "target": signal.target_text,
            "load": f"{spec.engine_slots.load_requests_per_s:.4g}",
            "seconds": f"{spec.engine_slots.time_in_replica_s:.3g}",
        }
        keda = _(
            "KEDA: add replicas when the engine's requests in flight (running + waiting) pass {target} per\n"
            "replica: what one replica holds at {load} requests/s, each request {seconds} s on it\n"
            "(README.md says why). Needs KEDA and Prometheus scraping the engine, k8s/podmonitor.yaml;\n"
            "set serverAddress to your Prometheus."
        ).format(**fields)
        hpa = _(
            "HPA: add replicas when the engine's requests in flight (running + waiting) pass {target} per\n"
            "replica on average: what one replica holds at {load} requests/s, each request {seconds} s\n"
            "on it (README.md says why). Needs Prometheus scraping the engine (k8s/podmonitor.yaml) and\n"
            "prometheus-adapter with k8s/prometheus-adapter-values.yaml."
        ).format(**fields)
        monitor = _(
            "Prometheus Operator: scrape each replica's /metrics. kube-prometheus-stack's Prometheus\n"
            "selects only PodMonitors labelled release: <its Helm release> unless\n"
            "prometheus.prometheusSpec.podMonitorSelectorNilUsesHelmValues is false: add that label."
        )
        files.append(
            GeneratedFile(path="k8s/podmonitor.yaml", content=dump_documents([_pod_monitor(spec)], monitor))
        )
    else:
        keda = _(
            "KEDA: add replicas when GPU utilisation passes {target} % per replica (needs KEDA\n"
            "and Prometheus scraping dcgm-exporter; set serverAddress to your Prometheus)."
        ).format(target=signal.target_text)
        hpa = _(
            "HPA: add replicas when average GPU utilisation passes {target} %.\n"
            "Needs dcgm-exporter, "
            "Prometheus and prometheus-adapter with k8s/prometheus-adapter-values.yaml."
        ).format(target=signal.target_text)
    sv = _serving(spec)
    if sv.schedule is not None:
        # an HPA never goes to zero replicas (its minReplicas is at least 1 without the alpha
        # HPAScaleToZero gate): KEDA does, on its cron scaler
        lead, how = _lead(spec)
        keda += "\n" + _(
            "Schedule: {when}; KEDA's cron scaler (keda.sh/docs/latest/scalers/cron) holds {n}\n"
            "replica(s) from {lead} min before its hours to their end, in {zone}; none run outside\n"
            "them, so this file is written for KEDA whatever --autoscaler says (an HPA cannot go to\n"
            "zero).\nThe lead is {how}."
        ).format(
            when=sv.schedule.window.said,
            n=sv.launch_replicas,
            lead=lead,
            zone=sv.schedule.time_zone,
            how=how,
        )
    if options.autoscaler == "keda" or sv.schedule is not None:
        files.append(
            GeneratedFile(
                path="k8s/keda-scaledobject.yaml",
                content=dump_documents([_scaled_object(spec, signal)], keda),
            )
        )
    else:
        files.append(GeneratedFile(path="k8s/hpa.yaml", content=dump_documents([_hpa(spec, signal)], hpa)))
        files.append(GeneratedFile(path="k8s/prometheus-adapter-values.yaml", content=_adapter_rules(signal)))
    return files


def serving_manifests(
    spec: LaunchSpec, options: GenerateOptions, code: list[GeneratedFile]
) -> list[GeneratedFile]:
    sv = _serving(spec)
    where = placement(spec)
    notes = "".join("\n" + _("NB: {note}").format(note=n) for n in where.notes)
    share = (
        "\n"
        + _(
            "Each replica gets one MIG slice nvidia.com/mig-{profile} (device plugin, mixed strategy)."
        ).format(profile=sv.mig_profile)
        if sv.mig_profile
        else "\n"
        + _("Each replica gets 1/{share} of a GPU by time-slicing (no memory isolation).").format(
            share=sv.share_gpu
        )
        if sv.share_gpu > 1
        else ""
    )
    files = []
    if not options.image and code:
        files.append(
            GeneratedFile(
                path="k8s/code-configmap.yaml",
                content=dump_documents(
                    [code_configmap(spec, code)],
                    _("serve.py and train.py (which defines the model) for the stock PyTorch image."),
                ),
            )
        )
    files.append(
        GeneratedFile(
            path="k8s/deployment.yaml",
            content=dump_documents(
                [_deployment(spec, options), _service(spec)],
                _("{name}: inference Deployment and Service on {gpu}").format(
                    name=spec.name, gpu=spec.gpu or _("a GPU")
                )
                + share
                + notes
                + "\n"
                + host_words(spec, spec.tensor_parallel * spec.pipeline_parallel),
            ),
        )
    )
    files += _autoscaler_files(spec, options, _signal(spec))
    if sv.share_gpu > 1:
        files.append(
            GeneratedFile(
                path="k8s/time-slicing-config.yaml",
                content=dump_documents(
                    [_time_slicing_configmap(spec)],
                    _(
                        "NVIDIA device plugin: advertise each GPU as {share} nvidia.com/gpu. Enable it:"
                    ).format(share=sv.share_gpu)
                    + "\nkubectl patch clusterpolicies.nvidia.com/cluster-policy -n gpu-operator \\\n"
                    "  --type merge -p '"
                    + _CLUSTER_POLICY_PATCH
                    + "'\n"
                    + _(
                        "Shared GPUs share memory and time: one replica's spike slows or OOMs its neighbours."
                    ),
                ),
            )
        )
    return files
