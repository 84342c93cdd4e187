"""The service's work, shared by the endpoints (fast paths) and the job worker (slow ones): the
same library calls the CLI makes, on a request instead of a command line.

Each function takes an open store and a validated request and returns a published document as a
JSON-ready dict. Tracing is the slow part; :func:`profile_cached` tells the endpoints whether a
request can be answered at once (its profile is in the cache) or goes to the job queue.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpuplan.errors import GpuplanError, InputError, Phrase
from gpuplan.web.requests import (
    DeployRequest,
    EstimateRequest,
    PlanRequest,
    RefusedValue,
    TcoRequest,
    check_workload,
    refused_as,
)

if TYPE_CHECKING:
    from gpuplan.catalog import Store
    from gpuplan.catalog.gpu_hour import GpuHourPrice
    from gpuplan.deploy.spec import EngineSlots, LaunchSpec
    from gpuplan.perf.scaling_gap import MeasuredScaling
    from gpuplan.plan import Plan
    from gpuplan.profile import Profile
    from gpuplan.web.answers import AnswerCache
    from gpuplan.workload import Workload

__all__ = [
    "cached_plan_text",
    "check_estimate_request",
    "check_inline_config",
    "deploy_archive",
    "estimate_document",
    "materialize",
    "plan_cache_key",
    "plan_document",
    "plan_report_html",
    "profile_cached",
    "read_workload",
    "tco_document",
]

#: Called with (progress 0-1, message) while a job runs.
Progress = Callable[[float, str], None]


def _no_progress(_fraction: float, _message: str) -> None:
    return None


def materialize(workload: dict[str, Any], hf_config_json: dict[str, Any] | None, scratch: Path) -> Workload:
    """The request's workload as a Workload the library can trace: checked at the edge
    (:func:`check_workload`), an inline Hugging Face config written to ``scratch`` under its
    content's digest (so the profile cache key, which hashes the file, is the same everywhere).

    Only a config that reads (:func:`check_inline_config`) is kept there: it is written to a file of
    this call's own in that folder, read from it, and renamed into place; a refused one is removed,
    so a caller cannot fill the server's disk with configs it knows will be refused, and two
    requests with the same config never share a half-written file."""
    spec = json.loads(json.dumps(check_workload(workload, hf_config_json)))  # a deep copy
    if hf_config_json is None:
        return read_workload(spec)
    text = json.dumps(hf_config_json, sort_keys=True, indent=1)
    _refuse_too_big(text)
    _refuse_too_costly(hf_config_json)
    folder = scratch / "hf" / hashlib.sha256(text.encode()).hexdigest()[:32]
    target = folder / "config.json"
    if not target.is_file():
        _write_checked(spec, text, folder, target)
    spec["model"]["hf_config"] = str(target)
    try:
        return read_workload(spec)
    except GpuplanError as e:
        raise _inline_refused(_named(e, (folder, target))) from None


def _refuse_too_big(text: str) -> None:
    """Refuse an inline config whose file would be larger than the command reads from a disk
    (``bounded.MAX_CONFIG_BYTES``), as the request's ``hf_config_json``, before it is written."""
    from gpuplan.bounded import MAX_CONFIG_BYTES
    from gpuplan.i18n import N_

    size = len(text.encode("utf-8"))
    if size > MAX_CONFIG_BYTES:
        raise RefusedValue.of(
            "hf_config_json",
            Phrase(
                N_("{size:,} bytes as a config.json, more than the {limit:,} accepted"),
                size=size,
                limit=MAX_CONFIG_BYTES,
            ),
        )


#: Layers an inline config of a request may describe: more than the deepest published models (96-126
#: layers: GPT-3 175B 96, Brown et al. 2020, table 2.1; Llama 3.1 405B 126, Meta's model card,
#: 2024-07), fewer than the command line's ``hf_size.MAX_LAYERS`` (512), which a local user may trace
#: on their own machine: on the service a trace holds a job worker that other users wait for.
SERVICE_MAX_LAYERS = 160
#: The most layers x width² an inline config of a request may describe, twice Llama 3.1 405B's
#: (126 x 16,384², Meta's config.json, 2024-07): a model far beyond any published one is no plan a
#: team buys GPUs for. The trace runs on fake tensors, so its time grows mostly with the layers; a
#: wide config still costs (measured on a 2-core machine under load: 32 layers of width 65,536
#: traced in 74 s, 512 layers of width 4,096 held a worker for 20 min).
SERVICE_MAX_LAYER_WIDTH2 = 2 * 126 * 16_384**2


def _refuse_too_costly(raw: dict[str, Any]) -> None:
    """Refuse an inline config whose trace would hold a job worker long, as the request's
    ``hf_config_json``, before anything is queued (the job's time limit, ``serve --job-limit-s``,
    stops what slips through)."""
    from gpuplan.i18n import N_
    from gpuplan.workload.hf_size import MAX_LAYERS, layers, width

    n, wide = layers(raw), width(raw)
    if n > SERVICE_MAX_LAYERS:
        raise RefusedValue.of(
            "hf_config_json",
            Phrase(
                N_(
                    "describes {layers:,.0f} layers, more than the {limit} this service traces for a "
                    "request (the deepest published models have 126; gpuplan estimate traces up to "
                    "{local} on your own machine)"
                ),
                layers=n,
                limit=SERVICE_MAX_LAYERS,
                local=MAX_LAYERS,
            ),
        )
    if n * wide * wide > SERVICE_MAX_LAYER_WIDTH2:
        raise RefusedValue.of(
            "hf_config_json",
            Phrase(
                N_(
                    "describes {layers:,.0f} layers of width {width:,.0f}, more tracing than this "
                    "service does for a request (at most layers × width² = {limit:,}, twice "
                    "Llama 3.1 405B's; gpuplan estimate traces it on your own machine)"
                ),
                layers=n,
                width=wide,
                limit=SERVICE_MAX_LAYER_WIDTH2,
            ),
        )


def read_workload(spec: dict[str, Any]) -> Workload:
    """The request's workload as :func:`gpuplan.workload.load_workload` reads it, a refused value
    named as the request names it (``workload.inputs.batch_size``), with the problem apart
    (:class:`RefusedValue`): the workload's own paths are for the command line."""
    from pydantic import ValidationError

    from gpuplan.errors import NotFoundError
    from gpuplan.workload import Workload, get_preset
    from gpuplan.workload._validation import one_line_error, refused_value

    model = spec.get("model")
    # ``model: gpt2`` is short for ``model: {preset: gpt2}``; an unknown preset is no validation
    # error of the workload's but the presets' own refusal, which names no field
    field, preset = ("workload.model", model) if isinstance(model, str) else ("workload.model.preset", None)
    if isinstance(model, dict):
        preset = model.get("preset")
    if isinstance(preset, str):
        try:
            get_preset(preset)
        except NotFoundError as e:
            raise RefusedValue.of(field, e) from None
    try:
        w = Workload.model_validate(spec)
    except ValidationError as e:
        path, problem = refused_value(e)
        if not path:  # a check of the whole workload ("serving: only applies to task: infer")
            raise RefusedValue.of("workload", one_line_error(e)) from None
        raise RefusedValue.of(f"workload.{path}", problem) from None
    _within_the_services_search(w)
    return w


def _within_the_services_search(w: Workload) -> None:
    """The service plans within the default search (``DEFAULT_PLANNED_GPUS`` GPUs and instances),
    as its request's ``max_gpus``, ``min_gpus`` and ``max_nodes`` are bounded: a workload's own
    constraints asked a larger one, several times the memory a request takes (``plan --max-gpus`` on
    the user's own machine goes further)."""
    from gpuplan.hardware.gpus import DEFAULT_PLANNED_GPUS
    from gpuplan.i18n import N_

    for key in ("max_gpus", "min_gpus", "max_nodes"):
        value = getattr(w.constraints, key)
        if value is not None and value > DEFAULT_PLANNED_GPUS:
            raise RefusedValue.of(
                f"workload.constraints.{key}",
                Phrase(
                    N_("must be ≤ {most} (got {value}), the most this service plans for"),
                    most=DEFAULT_PLANNED_GPUS,
                    value=value,
                ),
            )


def _write_checked(spec: dict[str, Any], text: str, folder: Path, target: Path) -> None:
    """``text`` at ``target`` once it reads as the workload's Hugging Face config; nothing left
    behind when it does not."""
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=folder, prefix=".config-", suffix=".json")
    temp = Path(name)
    try:
        with open(fd, "w", encoding="utf-8") as f:
            f.write(text)
        checked = {**spec, "model": {**spec["model"], "hf_config": str(temp)}}
        try:
            check_inline_config(read_workload(checked))
        except GpuplanError as e:
            raise _inline_refused(_named(e, (folder, temp))) from None
        temp.replace(target)
    finally:
        temp.unlink(missing_ok=True)
        if not target.is_file():
            with contextlib.suppress(OSError):  # another request's file is still in it
                folder.rmdir()


def _named(error: GpuplanError, paths: tuple[Path, ...]) -> GpuplanError:
    """``error`` with the server's scratch copy of an inline config named as the request's field
    (a client has no use for the path, and the server's folders are not its business)."""
    if isinstance(error, RefusedValue):
        return RefusedValue.of(error.field, _named(error.alone, paths))
    if not error.template:  # every reader's error is worded; a bare one is passed on as it is
        return error
    scratch = {str(p) for p in paths}

    def named(value: object) -> object:
        if isinstance(value, GpuplanError):  # a reader's error wrapped in the workload's
            return _named(value, paths)
        if isinstance(value, Phrase):
            return Phrase(value.template, **{k: named(v) for k, v in value.fields.items()})
        return "hf_config_json" if str(value) in scratch else value

    renamed = type(error).worded(error.template, **{k: named(v) for k, v in error.fields.items()})
    if isinstance(error, InputError) and isinstance(renamed, InputError) and error.field is not None:
        renamed.about(error.field, named(error.problem))
    return renamed


def _inline_refused(error: GpuplanError) -> GpuplanError:
    """A refusal of the inline Hugging Face config read from the server's copy (named already, see
    :func:`_named`) as a refusal of the request's ``hf_config_json``, where the library says what
    is wrong with the config apart from its name."""
    if isinstance(error, RefusedValue) and error.field == "workload.model.hf_config":
        # the workload's hf_config is the server's copy of hf_config_json, not the caller's value
        return RefusedValue.of("hf_config_json", error.alone)
    if isinstance(error, InputError) and error.field == "model.hf_config":
        return RefusedValue.of("hf_config_json", error.problem)
    return error


def check_inline_config(workload: Workload) -> None:
    """An inline Hugging Face config read as a trace will read it (a model type transformers
    knows, the size keys that type needs; no model built), naming the request's field: refused
    before a job is queued, not in it naming the server's scratch file."""
    if workload.model.hf_config_path is not None:
        from gpuplan.workload.hf import hf_config

        hf_config(workload, shown="hf_config_json")


def profile_cached(store: Store, workload: Workload) -> bool:
    """True when the store's cache holds this workload's profile (an answer in well under a second)."""
    from gpuplan.profile import PROFILE_SCHEMA_VERSION, profile_key

    return store.local.get_profile(profile_key(workload), PROFILE_SCHEMA_VERSION) is not None


def _profile(store: Store, workload: Workload, progress: Progress) -> Profile:
    from gpuplan.profile import profile

    progress(0.05, "tracing" if not profile_cached(store, workload) else "profile cached")
    return profile(workload, store.local)


def plan_cache_key(store: Store, request: PlanRequest, day: str, lang: str, kind: str = "document") -> str:
    """What an identical answer depends on: the request as validated, this gpuplan (its estimator
    and the profile format), the catalog's newest import and discounts, the day (prices age into
    ``stale``), the language of the document's words and what is kept (``document`` or
    ``report``). The workload's profile is a function of
    the request and this gpuplan, so it needs no place of its own in the key."""
    from gpuplan import __version__
    from gpuplan.catalog.team_store import TeamStore
    from gpuplan.profile import PROFILE_SCHEMA_VERSION

    newest, discounts = TeamStore(store.engine).catalog_state()
    fields = {
        "request": request.model_dump(mode="json"),
        "gpuplan": [__version__, PROFILE_SCHEMA_VERSION],
        "catalog": [newest, discounts],
        "day": day,
        "lang": lang,
        "kind": kind,
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _plan(store: Store, request: PlanRequest, workload: Workload, progress: Progress) -> Plan:
    from gpuplan.api import replica_load_on
    from gpuplan.plan import BaselineSpec, plan_workload

    prof = _profile(store, workload, progress)
    progress(0.8, "planning over the catalog")
    return plan_workload(
        workload,
        prof,
        store,
        overrides=request.overrides(),
        top=request.top,
        baseline=BaselineSpec.parse(request.baseline) if request.baseline else None,
        unknown_costs=request.unknown_costs,
        storage=request.storage,
        egress_free_tier=request.egress_free_tier,
        network_gbps=request.network_gbps,
        network_kind=request.network_kind,
        replica_load=replica_load_on,
        copy_gbps=request.copy_gbps,
    )


def check_plan_request(store: Store, request: PlanRequest, workload: Workload) -> None:
    """Raise now what planning would end in for the request's own values (a deadline of ``-5h``, a
    pricing model or objective that does not exist, an unparseable baseline, constraints that
    contradict each other, an unknown data.location region): refused before a job is queued, not
    after its trace."""
    from gpuplan.errors import NotFoundError
    from gpuplan.plan import BaselineSpec
    from gpuplan.plan.api import check_data_location
    from gpuplan.plan.build_inputs import budget_in_usd, constraints_from_spec
    from gpuplan.plan.contradictions import check_constraints
    from gpuplan.plan.network import checked_given_network

    try:
        overrides = request.overrides()
    except InputError as e:  # the deadline, the one option read there
        raise RefusedValue.of("deadline", e.problem if e.field else e) from None
    # a budget in yuan beside one in dollars, or without the catalog's rate: the request's yuan
    with refused_as("budget_cny") if request.budget_cny is not None else contextlib.nullcontext():
        given, _note = budget_in_usd(workload.constraints, overrides, store.find_exchange_rate("CNY"))
    try:
        check_constraints(constraints_from_spec(workload.constraints, **given), store)
    except (InputError, NotFoundError) as e:  # an unknown region or country is a NotFoundError
        raise _option_refused(store, workload, given, e) or e from None
    try:
        # a mistyped region had been queued, and the job failed seconds later
        check_data_location(workload, store)
    except NotFoundError as e:
        raise RefusedValue.of("workload.data.location", e) from None
    try:
        # a kind without its rate, as `gpuplan plan` refuses it
        checked_given_network(request.network_gbps, request.network_kind)
    except InputError as e:
        raise RefusedValue.of("network_kind", e) from None
    if request.baseline:
        try:
            BaselineSpec.parse(request.baseline)
        except InputError as e:
            raise RefusedValue.of("baseline", e) from None


#: The request's option for each of :meth:`PlanRequest.overrides`' keys that it names otherwise.
_OPTION_OF_OVERRIDE = {"deadline_h": "deadline"}


def _option_refused(
    store: Store, workload: Workload, given: dict[str, Any], combined: GpuplanError
) -> RefusedValue | None:
    """Of the constraints refused as given (``combined``), the one option refused alone on the
    workload's own constraints for the same reason (``pricing: ["reserved"]``, ``providers:
    ["awz"]``), named as the request names it; None where the workload's constraints are refused
    themselves, or only the options together are (``reserved_1y`` with ``commitment: none``: alone,
    the pricing would be refused for another reason, and naming it so would hide the contradiction)."""
    from gpuplan.errors import NotFoundError
    from gpuplan.plan.build_inputs import constraints_from_spec
    from gpuplan.plan.contradictions import check_constraints

    def refusal(**options: Any) -> InputError | NotFoundError | None:
        try:
            check_constraints(constraints_from_spec(workload.constraints, **options), store)
        except (InputError, NotFoundError) as e:
            return e
        return None

    if refusal() is not None:
        return None
    for key, value in given.items():
        if value is None or key == "budget_usd" or (e := refusal(**{key: value})) is None:
            continue
        if str(e) == str(combined):
            return RefusedValue.of(_OPTION_OF_OVERRIDE.get(key, key), e)
    return None


def plan_document(
    store: Store, request: PlanRequest, workload: Workload, progress: Progress = _no_progress
) -> dict[str, Any]:
    """``gpuplan plan --json``'s document."""
    from gpuplan.catalog import display_money
    from gpuplan.commit.recurring import with_data_copies
    from gpuplan.i18n import use_money
    from gpuplan.report.plan import plan_json

    shown = display_money(store, request.shown_currency(workload))
    with use_money(shown):
        plan = _plan(store, request, workload, progress)
        # the request's copy rate is the workload's own in the document, for deploy to read
        planned = workload.with_copy_gbps(request.copy_gbps).to_dict()
        doc = plan_json(plan, planned, store.find_exchange_rate("CNY"), shown.currency)
        return with_data_copies(doc.model_dump(mode="json"), store)


def cached_plan_text(
    store: Store,
    request: PlanRequest,
    workload: Workload,
    *,
    lang: str,
    answers: AnswerCache | None = None,
    progress: Progress = _no_progress,
) -> str:
    """:func:`plan_document` as JSON text, through the plan cache: the answer an identical request
    got today on the same catalog, else computed (once per process at a time) and kept."""
    from gpuplan.catalog.job_store import JobStore
    from gpuplan.web.answers import AnswerCache

    key = plan_cache_key(store, request, date.today().isoformat(), lang)
    cache = answers if answers is not None else AnswerCache(max_bytes=0)

    def make() -> str:
        return json.dumps(plan_document(store, request, workload, progress), ensure_ascii=False)

    return cache.compute(JobStore(store.engine), key, make).decode("utf-8")


def plan_report_html(store: Store, request: PlanRequest, workload: Workload) -> str:
    """The HTML report ``gpuplan plan --out report.html`` writes."""
    from gpuplan.catalog import display_money
    from gpuplan.i18n import use_money
    from gpuplan.report.plan_html import plan_html

    with use_money(display_money(store, request.shown_currency(workload))):
        return plan_html(_plan(store, request, workload, _no_progress), workload.name)


def check_estimate_request(store: Store, request: EstimateRequest, workload: Workload) -> None:
    """Raise now what estimating would end in for the request's own options, each named as the
    request names it: an unknown GPU (``gpus[1]``), a GPU count given twice (``count``), an unknown
    instance type (``instance``) or one of another GPU than ``gpus`` names (``gpus``); and GPUs
    that all lack the tensor cores of the workload's precision (fp8 on an A100: no answer, 422).
    Refused before a job is queued, not in it."""
    from gpuplan.api import instance_links, own_host, refuse_two_counts, refuse_unrunnable
    from gpuplan.hardware import parse_gpu_spec

    for i, gpu in enumerate(request.gpus or ()):
        with refused_as(f"gpus[{i}]"):
            parse_gpu_spec(gpu)
    with refused_as("count"):
        refuse_two_counts(request.gpus, request.count)
    gpus: Sequence[str] | None = request.gpus
    count = request.count
    if request.instance is not None:
        with refused_as("instance"):
            instance_links(store, request.instance)
        with refused_as("gpus"):  # the instance's GPU is not the one gpus names
            links = instance_links(store, request.instance, gpus=request.gpus)
        gpus, count = links.gpus, links.count(request.count)
    if request.vcpus is not None and request.instance is None:
        with refused_as("vcpus"):  # one machine's threads, for GPUs of several counts
            own_host(None, request.vcpus, request.gpus, request.count, workload)
    _measured(request, workload, gpus, count)
    refuse_unrunnable(workload, gpus)


def _measured(
    request: EstimateRequest, workload: Workload, gpus: Sequence[str] | None, count: int | None
) -> MeasuredScaling | None:
    """The request's measured speed-up or throughput (one of them), read against one configuration
    of several GPUs as ``gpuplan estimate`` reads it; refused naming the field that gave it."""
    from gpuplan.api import measured_scaling

    field = "measured_speedup" if request.measured_speedup is not None else "measured_throughput"
    with refused_as(field):
        return measured_scaling(workload, gpus, count, request.measured_speedup, request.measured_throughput)


def estimate_document(
    store: Store, request: EstimateRequest, workload: Workload, progress: Progress = _no_progress
) -> dict[str, Any]:
    """``gpuplan estimate --json``'s document (``--instance`` included: the same library calls)."""
    from gpuplan.api import estimate, instance_links, offered_gpu_hours, own_host, refuse_unread_speedup
    from gpuplan.errors import EstimateError
    from gpuplan.perf.anchor import workload_measurements
    from gpuplan.report.estimate import estimate_json

    offers = store.offers()

    def priced(count: int) -> dict[str, GpuHourPrice]:
        """What a job of ``count`` GPUs pays for each one, as ``gpuplan estimate`` prices it."""
        return offered_gpu_hours(workload, offers, count=count)

    links = instance_links(
        store,
        request.instance,
        gpus=request.gpus,
        network_gbps=request.network_gbps,
        network_kind=request.network_kind,
    )
    count = links.count(request.count)
    host = links.host
    if request.vcpus is not None:  # a machine of the user's own, as `estimate --vcpus` takes it
        host = own_host(host, request.vcpus, links.gpus, count, workload)
    scaling = _measured(request, workload, links.gpus, count)
    prof = _profile(store, workload, progress)
    progress(0.8, "estimating")
    steps, _problems = workload_measurements(workload, store.local.step_measurements)
    report = estimate(
        workload,
        links.gpus,
        count=count,
        profile=prof,
        measurements=store.local.bench_results(),
        network=links.network,
        host=host,
        offered_gpus=priced,
        measured_steps=steps,
        # the stock and tuned stacks' figures, as `gpuplan estimate --json` gives them
        levels=True,
        level_profile=lambda wl: _profile(store, wl, _no_progress),
        # the advice's checkpointing and combined rows: the workload written with them, as the CLI
        retrace_advice=True,
        measured_scaling=scaling,
    )
    outcomes = list(report.outcomes)
    if links.gpus and all(o.error for o in outcomes):
        raise EstimateError(str(outcomes[0].error))
    if scaling is not None:  # a job's error: its request's fields name the options
        refuse_unread_speedup(report, scaling)
    return estimate_json(
        report.profile,
        outcomes,
        report.calibration,
        parallelism=workload.parallelism.value,
        gradient_accumulation=workload.gradient_accumulation,
        tensor_parallel=workload.tensor_parallel,
        pipeline_parallel=workload.pipeline_parallel,
        stack=report.stack,
        levels=[(lv.level, lv.outcomes) for lv in report.levels],
        checkpoints=report.checkpoints,
    ).model_dump(mode="json")


def tco_document(store: Store, request: TcoRequest) -> dict[str, Any]:
    """``gpuplan tco --json``'s document, for a usage whose demands name GPUs (no workload files).
    A refused value is named as the request names it (``usage.demands[0].gpu``), with the problem
    apart (:class:`RefusedValue`): the usage file's own paths are for the command line."""
    from pydantic import ValidationError

    from gpuplan.api import tco
    from gpuplan.commit.usage import Usage
    from gpuplan.errors import NotFoundError
    from gpuplan.hardware import resolve_gpu
    from gpuplan.i18n import N_
    from gpuplan.report.tco import tco_json
    from gpuplan.workload._validation import refused_value

    usage = dict(request.usage)
    if "base_dir" in usage:
        raise RefusedValue.of(
            "usage.base_dir", Phrase(N_("the service reads no folder of its disk; leave it out"))
        )
    for i, d in enumerate(usage.get("demands") or []):
        if isinstance(d, dict) and d.get("workload") is not None:
            raise RefusedValue.of(
                f"usage.demands[{i}].workload",
                Phrase(
                    N_(
                        "the service reads no workload file; give gpu, gpus and hours_per_month "
                        "(or run gpuplan tco on your machine)"
                    )
                ),
            )
    try:
        parsed = Usage.model_validate(usage)
    except ValidationError as e:
        path, problem = refused_value(e)
        if not path:  # a check of the whole usage, whose words name the field
            raise RefusedValue.of("usage", problem) from None
        raise RefusedValue.of(f"usage.{path}", problem) from None
    for i, d in enumerate(parsed.demands):
        if d.gpu is not None:
            try:
                resolve_gpu(d.gpu)  # as tco reads it; refused here to name the field
            except NotFoundError as e:
                raise RefusedValue.of(f"usage.demands[{i}].gpu", e) from None
    return tco_json(tco(parsed, store=store, currency=request.currency))


def _engine_slots(
    store: Store, plan: dict[str, Any], spec: LaunchSpec, share: int, read: list[tuple[Workload, Profile]]
) -> EngineSlots | str:
    """The requests one replica of the plan's serving engine runs at once and those its autoscaler
    holds in flight, as ``gpuplan deploy`` counts them (the profile through the service's cache,
    appended to ``read``), else why not."""
    from gpuplan.api import deployed_engine_slots
    from gpuplan.deploy.engine import planned_capacity

    return deployed_engine_slots(
        spec.split_as_planned(_plan_workload(plan)),
        spec.gpu,
        share,
        lambda w: _read(read, w, _profile(store, w, _no_progress)),
        estimate_capacity_requests_per_s=planned_capacity(spec),
        latency_share=spec.latency_share if planned_capacity(spec) is not None else None,
        rtt_s=spec.users_rtt_s or 0.0,
    )


def _plan_workload(plan: dict[str, Any]) -> Workload | str:
    """The workload the plan carries, else why it cannot be had."""
    from gpuplan.i18n import _
    from gpuplan.workload import load_workload
    from gpuplan.workload.paths import plan_workload_document

    data = plan.get("workload")
    if not isinstance(data, dict):
        return _("the plan carries no workload")
    try:
        # A plan made by `gpuplan plan` carries the folder it was planned in (model.project_dir),
        # which nothing is read from unless the model is the user's code: refused only then.
        return load_workload(
            json.loads(json.dumps(check_workload(plan_workload_document(data), None, "plan.workload")))
        )
    except GpuplanError as e:
        return str(e)


def _read(read: list[tuple[Workload, Profile]], workload: Workload, traced: Profile) -> Profile:
    read.append((workload, traced))
    return traced


def deploy_archive(request: DeployRequest, store: Store) -> bytes:
    """``gpuplan deploy``'s files for the plan's recommended option, as a zip archive (in memory:
    the service writes nothing to its disk). For the k8s target, the plan's best option on a
    provider with managed Kubernetes unless ``own_cluster``; NOTE.txt says so where it is not the
    recommended one, where a serving engine's autoscaler scales on GPU utilisation because its
    requests in flight per replica could not be worked out, and where the plan's time assumes a
    network between nodes (EFA) that the files cannot (all) turn on."""
    from gpuplan.api import launch_weights
    from gpuplan.bounded import control_character
    from gpuplan.deploy import GenerateOptions, generate, get_generator
    from gpuplan.deploy.base import OPTION_FIELDS, check_out_dir
    from gpuplan.deploy.engine import ON_GPU_UTILISATION, engine_launch, unchecked_context
    from gpuplan.deploy.fabric import fabric_warning
    from gpuplan.deploy.grammar import check_image
    from gpuplan.deploy.k8s.host import catalog_host, reads_catalog_host
    from gpuplan.deploy.resume_memory import resume_memory_warning
    from gpuplan.deploy.spec import K8S_FIELDS, LaunchSpec
    from gpuplan.errors import DeployError
    from gpuplan.i18n import N_, _

    # each option refused is named as the request names it (field), its words as the command's
    with refused_as("target"):
        generator = get_generator(request.target)
    if request.own_cluster and generator.name != "k8s":
        raise RefusedValue.of("own_cluster", DeployError.worded(N_("own_cluster: only for target k8s")))
    managed = generator.name == "k8s" and not request.own_cluster

    def launch(*, managed_kubernetes: bool) -> LaunchSpec:
        return LaunchSpec.from_plan(
            request.plan,
            source="plan",  # the request's field
            folder=None,
            managed_kubernetes=managed_kubernetes,
            k8s_names=K8S_FIELDS,
        )

    with refused_as("plan"):
        spec = launch(managed_kubernetes=False)
    if managed:
        # a plan with no option on a managed Kubernetes: the target k8s refused for it ("target
        # k8s: the plan's option … is on lambda, …; use target skypilot, … or give own_cluster")
        with refused_as("target"):
            spec = launch(managed_kubernetes=True)
    if generator.name == "skypilot" and request.workdir is None:
        raise RefusedValue.of(
            "workdir",
            DeployError.worded(
                N_(
                    "the skypilot target needs workdir: the absolute path the archive's skypilot/ folder "
                    "will have once unpacked where you run `sky` (SkyPilot reads a relative workdir from "
                    "the folder it is run in)"
                )
            ),
        )
    with refused_as("workdir"):
        if request.workdir is not None and (ch := control_character(request.workdir)) is not None:
            raise DeployError.worded(
                N_("workdir holds U+{code:04X}, which is not printable text"), code=ord(ch)
            )
        if request.workdir is not None:
            check_out_dir(request.workdir, "workdir")  # not "/" nor "/a/../../etc": SkyPilot uploads it whole
    for field, image in (("image", request.image), ("base_image", request.base_image)):
        with refused_as(field):
            check_image(image, OPTION_FIELDS[field])
    with refused_as("steps"):  # the one option left for its own checks
        options = GenerateOptions(
            autoscaler=request.autoscaler,
            image=request.image,
            base_image=request.base_image,
            steps=request.steps,
            out_dir=request.workdir,
            names=OPTION_FIELDS,
        )
    # whether a replica smaller than the priced instance has an instance of its own size to run on
    spec = spec.with_sold_gpu_counts(store.known_instances())
    notes = [spec.chosen_because] if spec.chosen_because else []
    if engine_launch(spec) is not None:
        # the engine's autoscaler on its requests in flight and its longest request, as the command
        # line writes them
        share = spec.serving.share_gpu if spec.serving is not None else 1
        read: list[tuple[Workload, Profile]] = []
        slots = _engine_slots(store, request.plan, spec, share, read)
        if read:
            # one replica's weights: the time its pods are given to start, the disk their copies take
            spec = spec.with_weights_of(read[0][1], read[0][0])
        if isinstance(slots, str):
            if generator.name == "k8s":
                notes.append(_(ON_GPU_UTILISATION).format(why=slots))
            notes.append(unchecked_context(spec, slots))  # the cap the engine is started with instead
        else:
            spec = spec.with_engine_slots(slots).with_held_share(slots)
    else:
        # a batch job's vLLM downloads the weights onto the node's disk; a service on a schedule
        # reads its model's before its hours: as `gpuplan deploy` knows them (the same lead)
        def traced() -> tuple[Profile, Workload] | None:
            planned = _plan_workload(request.plan)
            return None if isinstance(planned, str) else (_profile(store, planned, _no_progress), planned)

        spec = launch_weights(spec, traced)
    if network := fabric_warning(spec, generator.name):
        notes.append(network)  # the plan's time assumes a network these files cannot (all) turn on
    if reads_catalog_host(spec, generator.name):
        spec = catalog_host(spec, store)
    if resume := resume_memory_warning(spec, generator.name):
        notes.append(resume)  # train.py's resume holds the whole checkpoint on every rank
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        if notes:
            # why the files are not for the plan's recommended option, or scale on GPU utilisation
            # (the CLI says it on stderr)
            note = zipfile.ZipInfo("NOTE.txt", date_time=(2020, 1, 1, 0, 0, 0))
            note.external_attr = 0o644 << 16
            note.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(note, "".join(f"{n}\n" for n in notes))
        for f in generate(spec, generator.name, options):
            info = zipfile.ZipInfo(f"{generator.name}/{f.path}", date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if getattr(f, "executable", False) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, f.content)
    return buf.getvalue()
