"""CLI: ``gpuplan deploy`` writes the files that launch a plan (or a workload) on a target."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpuplan.cli._access import ProjectOption
from gpuplan.cli._i18n import LangOption, apply_language, option_given
from gpuplan.cli._numbers import finite_float, whole_number
from gpuplan.hardware.gpus import MAX_GPU_COUNT
from gpuplan.i18n import N_, _, ngettext
from gpuplan.i18n.phrases import item_list, listed

if TYPE_CHECKING:
    from gpuplan.catalog.model import OfferPrice
    from gpuplan.cli.deploy_checks import Instances, Network
    from gpuplan.deploy import LaunchSpec
    from gpuplan.deploy.base import GeneratedFile
    from gpuplan.deploy.serving_spec import PeakFleet
    from gpuplan.deploy.user_package import UserPackage
    from gpuplan.profile.model import Profile
    from gpuplan.workload import Workload
    from gpuplan.workload.spec import ConstraintsSpec

_TARGETS_HELP = "torchrun | docker | k8s | skypilot"


def register(app: typer.Typer) -> None:
    """Add this group's commands to `app`."""
    app.command(name="deploy")(deploy)


def deploy(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(
            help="A plan file (plan.json from `gpuplan plan --json`) or a workload file (job.yaml).",
            metavar="PLAN.json|WORKLOAD.yaml",
            show_default=False,
        ),
    ],
    target: Annotated[str, typer.Option("--target", "-t", help=f"What to generate: {_TARGETS_HELP}.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the files into.")],
    force: Annotated[
        bool, typer.Option("--force", help="Write into a non-empty --out, replacing files of the same name.")
    ] = False,
    force_fit: Annotated[
        bool,
        typer.Option(
            "--force-fit",
            help="Write the files even where the job (a workload file's or a training plan's) does not "
            "fit or cannot be checked, or one replica in its share of a GPU (--share-gpu) does not fit.",
        ),
    ] = False,
    gpu: Annotated[
        str | None,
        typer.Option(
            help="Workload files only: the GPU (A100-SXM4-80GB, H100-SXM, T4 ...), or NAME:COUNT with its "
            "count (A100-SXM4-80GB:4, as --count 4).",
            show_default=False,
        ),
    ] = None,
    count: Annotated[
        int,
        typer.Option(
            "--count",
            "-n",
            parser=whole_number(1, MAX_GPU_COUNT),
            help="Workload files only: GPUs in all (more than the largest instance holds: on several nodes).",
        ),
    ] = 1,
    provider: Annotated[
        str | None, typer.Option(help="Workload files only: aws, azure, gcp, alibaba ...", show_default=False)
    ] = None,
    region: Annotated[
        str | None, typer.Option(help="Workload files only: the region.", show_default=False)
    ] = None,
    spot: Annotated[bool, typer.Option("--spot", help="Workload files only: run on spot capacity.")] = False,
    autoscaler: Annotated[
        str, typer.Option(help="k8s serving: hpa (prometheus-adapter) or keda.", case_sensitive=False)
    ] = "hpa",
    image: Annotated[
        str | None,
        typer.Option(
            help="k8s: run this image (built from the Dockerfile) instead of mounting the code.",
            show_default=False,
        ),
    ] = None,
    base_image: Annotated[
        str | None,
        typer.Option(
            help="docker/k8s: base image instead of the one chosen for the GPU.", show_default=False
        ),
    ] = None,
    utilization_target: Annotated[
        float | None,
        typer.Option(
            help="k8s serving: scale out above this GPU utilisation, percent (default 80).",
            show_default=False,
            parser=finite_float,
        ),
    ] = None,
    share_gpu: Annotated[
        int | None,
        typer.Option(
            help="k8s serving: replicas of this one service per GPU, time-sliced (4: four of its replicas "
            "share each card). Several services on shared cards: gpuplan simulate share.",
            show_default=False,
        ),
    ] = None,
    mig_profile: Annotated[
        str | None,
        typer.Option(help="k8s serving: one MIG slice per replica, e.g. 1g.10gb.", show_default=False),
    ] = None,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            help="Serving by an engine: size its replicas (the requests one runs at once, the longest it "
            "takes) on this trace's request lengths (CSV as simulate reads it).",
            show_default=False,
        ),
    ] = None,
    model_cache_pvc: Annotated[
        str | None,
        typer.Option(
            "--model-cache-pvc",
            help="k8s, a serving or batch engine: keep the model's weights on this existing "
            "PersistentVolumeClaim (ReadWriteMany for pods on several nodes) instead of downloading them "
            "in every pod that starts.",
            metavar="NAME",
            show_default=False,
        ),
    ] = None,
    own_cluster: Annotated[
        bool,
        typer.Option(
            "--own-cluster",
            help="k8s: you run Kubernetes on the plan's machines yourself; deploy its recommended option "
            "even on a provider without managed Kubernetes.",
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print what was written as JSON.")] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="List the files (and the copies of yours, with their sources); write nothing."
        ),
    ] = False,
    project: ProjectOption = None,
    steps: Annotated[
        str | None,
        typer.Option(
            help=(
                "Training steps, or full: samples x epochs (the default for your own model; a stand-in "
                "model runs a short check of the launch unless given)."
            ),
            show_default=False,
        ),
    ] = None,
    lang: LangOption = None,
) -> None:
    """Write the files that launch a plan (or a workload): torchrun, Docker, Kubernetes or SkyPilot.

    Each target's directory holds a README.md that says how to start it."""
    # Imported here so that `gpuplan --help` does not pay for pydantic models and YAML.
    from gpuplan.deploy import GenerateOptions, generate, get_generator, load_spec, write_files
    from gpuplan.deploy.base import parse_steps
    from gpuplan.deploy.engine import (
        ON_GPU_UTILISATION,
        batch_engine_launch,
        engine_launch,
        unchecked_context,
        unpriced_share,
        unread_config_warning,
    )
    from gpuplan.deploy.fabric import fabric_warning
    from gpuplan.deploy.k8s.host import reads_catalog_host
    from gpuplan.deploy.k8s.serving import slow_start_warning
    from gpuplan.deploy.residency import border_warning
    from gpuplan.deploy.resume_memory import resume_memory_warning
    from gpuplan.deploy.torchrun import stand_in_warning
    from gpuplan.errors import InputError, NotFoundError

    apply_language(lang)
    generator = get_generator(target)  # fails fast, with "did you mean", before reading anything
    step_count = parse_steps(steps) if steps is not None else None
    if autoscaler.lower() not in ("hpa", "keda"):
        raise NotFoundError("--autoscaler", autoscaler, ["hpa", "keda"])  # "did you mean 'keda'" for kada
    if own_cluster and generator.name != "k8s":
        raise InputError.worded(N_("--own-cluster: only for --target k8s"))
    if model_cache_pvc is not None:
        from gpuplan.deploy.grammar import check_object_name

        if generator.name != "k8s":
            raise InputError.worded(N_("--model-cache-pvc: only for --target k8s"))
        check_object_name(model_cache_pvc, "--model-cache-pvc")  # before anything is read or traced
    lengths = None
    if trace is not None:
        from gpuplan.simulate import read_trace_csv

        lengths = read_trace_csv(trace)  # a bad trace is refused before anything is traced or written
    is_plan = source.suffix.lower() == ".json"
    workload_only = {"--gpu": gpu, "--provider": provider, "--region": region, "--spot": spot or None}
    if is_plan and (
        given := [k for k, v in workload_only.items() if v is not None] + (["--count"] if count != 1 else [])
    ):
        # The plan's GPU, count and place are what was planned and priced: another one beside it is
        # a contradiction, not a choice (deploy the workload file to choose them).
        raise InputError.worded(
            N_(
                "{options}: only for workload files; the plan file already says where to run "
                "(deploy the workload file to choose them)"
            ),
            options=listed(given),
        )
    count_given = option_given(ctx, "count")
    if gpu is not None and ":" in gpu:
        # NAME:COUNT, as estimate reads it: the count given with the GPU
        from gpuplan.hardware import parse_gpu_spec

        card, named = parse_gpu_spec(gpu)
        if named is not None:
            if count_given and count != named:
                raise InputError.worded(
                    N_("--gpu {gpu} and --count {count} give two GPU counts; give one of them"),
                    gpu=gpu,
                    count=count,
                )
            count, count_given = named, True
        gpu = card.id
    # the workload file and its profile as the heads' check read them, for the checks below
    read_first: tuple[Workload, Profile | None] | None = None
    if not is_plan and gpu:
        # A split the model's heads do not divide is refused first, in plan's words: the node and
        # GPU-count checks below would each point at another fix (a node of 3 GPUs, a count of 6)
        read_first = _check_heads(ctx, source, project, gpu)
    # The catalog's instance types: a workload's layout on nodes, a plan's instance checked.
    instances = _catalog_instances(ctx)
    per_node, nodes, instance_type = count, 1, None
    served_layout: tuple[int, int, str | None] | None = None  # a service's, laid out per replica
    if not is_plan and gpu and instances is not None:
        from gpuplan.catalog.providers import PROVIDERS
        from gpuplan.cli.deploy_checks import node_layout, only_shape
        from gpuplan.hardware import get_gpu

        # Names checked here as load_spec checks them (one line, "did you mean"), before the layout.
        cast_provider = PROVIDERS.cast(provider) if provider is not None else None
        served_layout = _service_layout(
            ctx, read_first, instances, get_gpu(gpu).id, count, cast_provider, region
        )
        if served_layout is not None:
            per_node, nodes, instance_type = served_layout
        else:
            per_node, nodes = node_layout(
                instances, get_gpu(gpu).id, count, cast_provider, networks=lambda g: _catalog_networks(ctx, g)
            )
        if nodes > 1 and served_layout is None:
            # several nodes of the provider's one shape of that size: that instance, whose network
            # (EFA on AWS) the launch files ask for and whose node label the manifests select
            instance_type = only_shape(instances, get_gpu(gpu).id, per_node, cast_provider)
    planned = load_spec(
        str(source),
        gpu=gpu,
        count=per_node,
        nodes=nodes,
        provider=provider,
        region=region,
        pricing="spot" if spot else "on_demand",
        instance_type=instance_type,
        project=str(project) if project is not None else None,
        # a plan's option on a provider with no managed Kubernetes would be manifests for no cluster
        managed_kubernetes=generator.name == "k8s" and not own_cluster,
    )
    from gpuplan.deploy.spec import refuse_declared_provider

    refuse_declared_provider(planned.provider, generator.name, planned)
    split = planned.tensor_parallel * planned.pipeline_parallel
    if share_gpu is not None and share_gpu > 1 and planned.task == "infer" and split > 1:
        # Replicas time-share one GPU each: a replica of several GPUs has none of its own to share.
        raise InputError.worded(
            N_(
                "--share-gpu {share}: replicas time-share one GPU each, but one replica of this workload "
                "spans {n} GPUs (tensor_parallel × pipeline_parallel); leave --share-gpu out"
            ),
            share=share_gpu,
            n=split,
        )
    spec = planned.with_serving(
        gpu_utilization_target=utilization_target, share_gpu=share_gpu, mig_profile=mig_profile
    )
    if (
        not is_plan
        and nodes > 1
        and served_layout is None
        and spec.provider
        and spec.instance_type
        and spec.gpu
    ):
        spec = _with_unlisted_network(ctx, spec)
    if instances is not None:
        # whether a replica smaller than the priced instance has an instance of its own size to run on
        spec = spec.with_sold_gpu_counts(instances)
    if not is_plan and spec.provider and spec.gpu and instances is not None:
        _warn_unsold_shape(instances, spec.provider, spec.gpu, spec.gpus_per_node)
        from gpuplan.workload import load_workload

        # the regions it suggests are those the workload's place rules allow (no cn-hongkong under CN)
        rules = (
            read_first[0] if read_first is not None else load_workload(source, project=project)
        ).constraints
        _warn_unoffered_pricing(ctx, spec.provider, spec.gpu, spec.region, spec.pricing, rules)
    if is_plan and instances is not None:
        from gpuplan.cli.deploy_checks import check_plan_instance

        # A plan may have been edited by hand: its instance is launched as named.
        check_plan_instance(instances, spec.provider, spec.instance_type)
    share = spec.serving.share_gpu if spec.serving is not None else 1
    # One replica must fit its 1/n of the GPU; a plan priced at this share has checked it already.
    shared = spec.task == "infer" and share > 1 and spec.planned_share_gpu != share
    served: Workload | str | None = None  # the workload, read once for the checks below
    fleet: PeakFleet | None = None  # a service's peak fleet by the estimate (check_fit's)
    prof: Profile | None = None
    steps_h: float | None = None  # the estimate's time of a job's steps (check_fit's)
    if read_first is not None:
        served, prof = read_first
    # A training plan is checked again as a workload file is where its workload is not the one it
    # was planned for (edited by hand after `gpuplan plan`: a larger batch), or the plan cannot
    # say (written before it recorded its workload's digest): the files run what it now says. An
    # unedited plan keeps its own verdict (made on the profile it was planned with, --profile's).
    train_plan = is_plan and spec.task != "infer" and spec.plan_edited is not False
    if spec.gpu and (not is_plan or shared or train_plan):
        from gpuplan.cli._settings import settings
        from gpuplan.cli.deploy_checks import check_fit, check_share_fit, plan_workload
        from gpuplan.workload import load_workload

        # The estimator's verdict before anything is written: a launch on a GPU the job cannot fit
        # fails only after the machine is paid for. A workload file and a training plan are checked
        # on their GPUs; a service's plan (priced on them) only at a share it was not priced at,
        # one replica on one GPU.
        if served is None:
            served = (
                spec.split_as_planned(plan_workload(source, project))
                if is_plan
                else load_workload(source, project=project)
            )
        # The GPUs offered come from the instance shapes already read, not a second read of every offer.
        offered = None if instances is None else dict.fromkeys(g for g, _count in instances.values())
        gpus = spec.total_gpus if not is_plan or train_plan else 1
        # each replica judged in its share of a GPU: --share-gpu's, or the share a plan is deployed at
        judged_share = share if is_plan else share_gpu
        if not isinstance(served, str) and served.model.python is not None:
            # The user's own model code is never run to write launch files (SECURITY.md): its fit is
            # checked on the trace `gpuplan estimate` or `plan` cached, and refused unchecked without one.
            fleet = _check_code_plan_fit(
                ctx,
                source,
                project,
                spec.gpu,
                gpus,
                _("deploy does not run your model's code"),
                force=force_fit,
                offered=offered,
                code=served,
                share=judged_share,
                count_given=None if is_plan else count_given,
            )
        elif not isinstance(served, str):
            prof, fleet, steps_h = check_fit(
                settings(ctx).db,
                served,
                spec.gpu,
                gpus,
                force=force_fit,
                offered=offered,
                share=judged_share,
                profile=prof,
                # a service from its workload file: the GPUs its load needs, against the count
                count_given=None if is_plan else count_given,
            )
        elif train_plan and not (spec.project_dir is None and generator.copies_user_package and not image):
            # (a package that cannot be copied is refused by the files' own check, in its words)
            _check_code_plan_fit(
                ctx, source, project, spec.gpu, gpus, served, force=force_fit, offered=offered
            )
        if shared:
            check_share_fit(
                settings(ctx).db,
                served,
                spec.gpu,
                share,
                force=force_fit,
                flag=share_gpu is not None,
                profile=prof,
                engine=engine_launch(spec) is not None,
            )
    if not is_plan:
        # the autoscaler's ceiling: the fleet plan sizes for the service's peak on this GPU
        spec = spec.with_peak_fleet(fleet)
    # What the files would hide until they run, said together once the files are written, before
    # "wrote N files" (a write refused is one line alone): warnings and notes, in the order found.
    said: list[str] = []
    if (
        not is_plan
        and served is not None
        and not isinstance(served, str)
        and (late := _past_deadline(served, steps_h, spec))
    ):
        # a workload file's GPUs are the user's choice: no plan held them to its deadline
        said.append(_("warning: {line}").format(line=late))
    if engine_launch(spec) is not None:
        # The engine's autoscaler holds the requests in flight on a replica at the load chosen from
        # the plan's estimate and the simulated replica (perf/replica_load.py), as `simulate
        # autoscale --policy queue` replays it; every target caps the longest request at what one
        # replica's KV cache holds.
        from gpuplan.api import deployed_engine_slots
        from gpuplan.cli._profiles import load_profile
        from gpuplan.cli._settings import settings
        from gpuplan.cli.deploy_checks import cached_profile, plan_workload
        from gpuplan.deploy.engine import planned_capacity
        from gpuplan.deploy.spec import peak_ceiling_words
        from gpuplan.errors import DeployError
        from gpuplan.workload import load_workload

        if served is None:
            served = (
                spec.split_as_planned(plan_workload(source, project))
                if is_plan
                else load_workload(source, project=project)
            )
        db = settings(ctx).db
        traced = prof
        read: list[tuple[Workload, Profile]] = []  # the workload and profile the slots were counted on

        def profile_of(w: Workload) -> Profile:
            if traced is not None:
                read.append((w, traced))
                return traced
            if w.model.python is None:
                read.append((w, load_profile(w, db)))
                return read[-1][1]
            # the user's own code is not run to write launch files: its cached trace, or no slots
            cached = cached_profile(db, w)
            if cached is None:
                raise DeployError(
                    _("no trace of this workload is cached here (deploy does not run your model's code)")
                )
            read.append((w, cached))
            return cached

        slots = deployed_engine_slots(
            served,
            spec.gpu,
            share,
            profile_of,
            trace=lengths,
            estimate_capacity_requests_per_s=planned_capacity(spec),
            latency_share=spec.latency_share if planned_capacity(spec) is not None else None,
            rtt_s=spec.users_rtt_s or 0.0,
            # a workload file's latency share at whole instances of its instance type, as a plan
            # takes it (GPUs one at a time where no instance is known: a node's count is then only
            # the layout asked for)
            gpus_per_instance=spec.gpus_per_node if spec.instance_type is not None else 1,
        )
        if read:
            # one replica's weights, as the plan's storage and spot replacement count them: the
            # time its pods are given to start, and the disk their copies take
            spec = spec.with_weights_of(read[0][1], read[0][0])
        if isinstance(slots, str):
            if generator.name == "k8s":
                gpu_util = _(ON_GPU_UTILISATION).format(why=slots)
                said.append(_("warning: {line}").format(line=gpu_util))
            # the cap the engine is started with instead, in every target
            said.append(_("note: {line}").format(line=unchecked_context(spec, slots)))
        else:
            spec = spec.with_engine_slots(slots).with_held_share(slots)
            if generator.name == "k8s" and (ceiling := peak_ceiling_words(spec)) is not None:
                # said where the command is run, not only in the README: the files as written
                # queue requests at the service's peak
                said.append(_("warning: {line}").format(line=ceiling))
    elif trace is not None:
        raise InputError.worded(
            N_(
                "--trace sizes a serving engine's replicas on your traffic's request lengths (a workload "
                "served by vLLM or SGLang); this deploy runs none"
            )
        )
    elif batch_engine_launch(spec) is not None or (spec.serving is not None and spec.serving.schedule):
        # a batch job's vLLM downloads the weights onto the node's disk; serve.py downloads none, but
        # the service the plan priced reads its model's before it serves (the cron lead before its
        # hours): as the service's deploy knows them
        spec = _with_weights(ctx, spec, source, project, is_plan, served, prof)
    if not is_plan and prof is not None:
        # a workload file's checkpoint as the plan sizes it, and the interval the plan would take off
        # spot for it where the workload states none (a slow write: written less often)
        spec = spec.with_checkpoint_of(prof)
        from gpuplan.api import spot_checkpoint_interval

        on_spot = spot_checkpoint_interval(
            spec,
            _spot_offers(ctx, spec),
            workload=served if not isinstance(served, str) else None,
            profile=prof,
            steps_h=steps_h,
        )
        if on_spot is not None:
            # on spot (--spot): Young/Daly's interval at the assumed reclaim rate, capped at the job's
            # length, as the plan takes it
            spec, words = on_spot
            typer.echo(_("note: {line}").format(line=words), err=True)
    if reads_catalog_host(spec, generator.name):
        spec = _with_catalog_host(ctx, spec)
    if model_cache_pvc is not None and engine_launch(spec) is None and batch_engine_launch(spec) is None:
        line = _("--model-cache-pvc has no effect: these pods run no serving engine that downloads a model")
        said.append(_("warning: {line}").format(line=line))
    if unpriced := unpriced_share(spec):
        said.append(_("note: {line}").format(line=unpriced))
    if unread := unread_config_warning(spec):
        # The plan's model is not known to have Hub weights: a stand-in, said before it is written.
        said.append(_("warning: {line}").format(line=unread))
    if border := border_warning(spec.provider, spec.region, spec.data_location):
        # the data in mainland China would leave it: the plan's note says the rules; said again here
        said.append(_("warning: {line}").format(line=border))
    if network := fabric_warning(spec, generator.name):
        # The plan's time assumes the instance's RDMA network, which these files cannot (all) turn on.
        said.append(_("warning: {line}").format(line=network))
    if resume := resume_memory_warning(spec, generator.name):
        # train.py's resume holds the whole checkpoint on every rank: more than the node's memory
        said.append(_("warning: {line}").format(line=resume))
    options = GenerateOptions(
        autoscaler="keda" if autoscaler.lower() == "keda" else "hpa",
        image=image,
        base_image=base_image,
        steps=step_count,
        out_dir=_absolute(out),
        model_cache_pvc=model_cache_pvc,
    )
    if spec.chosen_because:
        typer.echo(spec.chosen_because, err=True)
    files = generate(spec, generator.name, options)
    # what the README alone had said of files that, launched as written, rent the plan's GPUs for
    # less than it planned
    if generator.name == "k8s" and (slow := slow_start_warning(spec, options)):
        # the README's cold start, where an autoscaler cannot follow the load with it
        said.append(_("warning: {line}").format(line=slow))
    if any(Path(f.path).name == "train.py" for f in files) and (stand_in := stand_in_warning(spec, options)):
        # train.py of a preset or a config trains a stand-in on synthetic data
        said.append(_("warning: {line}").format(line=stand_in))
    copies = [f for f in files if f.source is not None]
    # The manifest comes before the first write: the user sees which of their files leave home.
    from gpuplan.deploy.user_package import install_hint

    _show_copies(
        copies,
        out,
        spec.model_entry_point,
        everything=dry_run,
        copying=generator.copies_user_package,
        install="" if generator.copies_user_package else install_hint(spec),
    )
    package = _show_package_notes(spec, copying=generator.copies_user_package, copied=bool(copies))
    written = [] if dry_run else write_files(files, out, force=force)
    # said once the files are written (or would be): a write refused (--out, a full disk) is its one
    # line alone, as every bad input is
    for line in said:
        typer.echo(line, err=True)
    if json_out:
        # Stable document (schema_version 1): what was written where (or, with --dry-run, would be),
        # the run the files are for (its checkpoint storage is named with the id, so a script
        # finds the bucket or volume of this run, not an older one's), the copies of the user's
        # files with their sources, and what to read next.
        doc = {
            "schema_version": 1,
            "target": generator.name,
            "out_dir": str(out),
            "dry_run": dry_run,
            "run_id": options.run_id,
            "files": [f.path for f in files],
            "copied": [{"path": f.path, "source": f.source} for f in copies],
            "dependencies": _dependencies_doc(package),
            "readme": str(out / "README.md"),
        }
        typer.echo(json.dumps(doc, indent=2))
        return
    if dry_run:
        typer.echo(
            ngettext(
                "would write {n} file to {out}/ for {target} (nothing written): {files}",
                "would write {n} files to {out}/ for {target} (nothing written): {files}",
                len(files),
            ).format(n=len(files), out=out, target=generator.name, files=item_list(f.path for f in files))
        )
        return
    typer.echo(
        ngettext(
            "wrote {n} file to {out}/ for {target}: {files}",
            "wrote {n} files to {out}/ for {target}: {files}",
            len(written),
        ).format(n=len(written), out=out, target=generator.name, files=item_list(f.path for f in files))
    )
    typer.echo(_("next: read {readme}").format(readme=out / "README.md"))


def _with_weights(
    ctx: typer.Context,
    spec: LaunchSpec,
    source: Path,
    project: Path | None,
    is_plan: bool,
    served: Workload | str | None,
    prof: Profile | None,
) -> LaunchSpec:
    """``spec`` knowing the weights of its launch as the plan counts them
    (:func:`gpuplan.api.launch_weights`, which the service's deploy calls too), the profile read
    here where none was: unchanged where the workload cannot be read, or its model is the user's
    code with no cached trace (deploy does not run it)."""
    from gpuplan.api import launch_weights
    from gpuplan.cli._profiles import load_profile
    from gpuplan.cli._settings import settings
    from gpuplan.cli.deploy_checks import cached_profile, plan_workload
    from gpuplan.workload import load_workload

    def traced() -> tuple[Profile, Workload | None] | None:
        read = served
        if read is None:
            read = plan_workload(source, project) if is_plan else load_workload(source, project=project)
        known = None if isinstance(read, str) else read  # its checkpoint's dtype unknown without it
        if prof is not None:
            return prof, known
        if known is None:
            return None
        db = settings(ctx).db
        cached = load_profile(known, db) if known.model.python is None else cached_profile(db, known)
        return None if cached is None else (cached, known)

    return launch_weights(spec, traced)


def _check_heads(
    ctx: typer.Context, source: Path, project: Path | None, gpu: str
) -> tuple[Workload, Profile | None]:
    """Refuse a workload file whose ``tensor_parallel`` the model's attention (or key/value) heads do
    not divide, as plan, estimate and simulate refuse it (``check_model_parallel`` on one replica's
    GPUs, which says the degrees that do and how many of ``gpu`` hold the weights). The user's own
    model code is not run here (its fit is checked on its cached trace later). Returns the workload
    and the profile it read (None where it traced nothing), which the fit check takes on."""
    from gpuplan.cli._profiles import load_profile
    from gpuplan.cli._settings import settings
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.stages.layout import ModelParallel, check_model_parallel
    from gpuplan.workload import load_workload

    workload = load_workload(source, project=project)
    tp = workload.tensor_parallel
    if tp <= 1 or workload.model.python is not None:
        return workload, None
    prof = load_profile(workload, settings(ctx).db)
    check_model_parallel(
        ModelParallel(tensor=tp), prof, count=tp, gpus_per_node=tp, microbatches=1, gpu=get_gpu(gpu)
    )
    return workload, prof


def _check_code_plan_fit(
    ctx: typer.Context,
    source: Path,
    project: Path | None,
    gpu: str,
    gpus: int,
    why: str,
    *,
    force: bool,
    offered: dict[str, None] | None,
    code: Workload | None = None,
    share: int | None = None,
    count_given: bool | None = None,
) -> PeakFleet | None:
    """A workload of the user's own model code, which deploy never runs (``why``): a training plan's
    (read again from the plan) or ``code``, a workload file's as read. Checked on the cached trace of
    the workload as it now stands, where ``gpuplan estimate`` or ``plan`` of it left one here; else
    refused as unchecked (``force``: a warning). Nothing is traced. ``share``: replicas to a GPU
    in place of the workload's own (``--share-gpu``'s, or the share a plan is deployed at), its
    memory and fleet judged in that share as a preset's are. Returns a service's peak fleet as
    :func:`~gpuplan.cli.deploy_checks.check_fit` sizes it (``count_given``: a workload file's
    service, its GPUs checked against its load as there), None without one."""
    from gpuplan.cli._settings import settings
    from gpuplan.cli.deploy_checks import cached_profile, check_fit, plan_workload, unchecked_plan_fit

    where = f"{gpus} x {gpu}" if gpus > 1 else gpu
    db = settings(ctx).db
    read = plan_workload(source, project, code=True) if code is None else code
    if isinstance(read, str):
        unchecked_plan_fit(where, read, force=force)
        return None
    cached = cached_profile(db, read)
    if cached is None:
        unchecked_plan_fit(
            where,
            _(
                "{why}, and no trace of the workload as the plan now holds it is cached here (a plan "
                "edited by hand after `gpuplan plan`, or made on another machine)"
            ).format(why=why)
            if code is None
            else _("{why}, and no trace of this workload is cached here").format(why=why),
            force=force,
        )
        return None
    return check_fit(
        db,
        read,
        gpu,
        gpus,
        force=force,
        offered=offered,
        share=share,
        profile=cached,
        count_given=count_given,
    )[1]


def _service_layout(
    ctx: typer.Context,
    read: tuple[Workload, Profile | None] | None,
    instances: Instances,
    gpu: str,
    count: int,
    provider: str | None,
    region: str | None,
) -> tuple[int, int, str | None] | None:
    """A workload file's service on ``count`` × ``gpu`` as (GPUs per node, nodes, instance type),
    laid out per replica as ``gpuplan plan`` lays a service out
    (:func:`~gpuplan.cli.deploy_checks.replica_layout`), on the smallest instance of the provider
    (in ``region`` where named) that holds one replica's weights
    (:func:`~gpuplan.cli.deploy_checks.smallest_shape`; None: no provider named, or none listed),
    with a note on stderr where it spans several nodes. None for a training job or a batch job
    (laid out as one job: :func:`~gpuplan.cli.deploy_checks.node_layout`), or where the catalog
    lists no shape of whole replicas that makes ``count``."""
    from gpuplan.cli.deploy_checks import replica_layout

    if read is None:
        return None
    workload = read[0]
    if workload.task != "infer" or workload.serving is None:
        return None
    layout = replica_layout(
        instances, gpu, count, provider, workload.tensor_parallel * workload.pipeline_parallel
    )
    if layout is None:
        return None
    per_node, nodes = layout
    instance = None if provider is None else _replica_instance(ctx, read, gpu, per_node, provider, region)
    if nodes > 1:
        where = (
            _(
                ", {instance} (the smallest {provider} instance of that size that holds a replica's weights)"
            ).format(instance=instance, provider=provider)
            if instance
            else ""
        )
        line = ngettext(
            "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} GPU{where}: a service's replicas "
            "share no traffic, so each needs its own GPUs in one node only, as `gpuplan plan` lays them out",
            "note: {count} x {gpu} laid out as {nodes} nodes of {per_node} GPUs{where}: a service's replicas "
            "share no traffic, so each needs its own GPUs in one node only, as `gpuplan plan` lays them out",
            per_node,
        )
        typer.echo(line.format(count=count, gpu=gpu, nodes=nodes, per_node=per_node, where=where), err=True)
    return per_node, nodes, instance


def _replica_instance(
    ctx: typer.Context,
    read: tuple[Workload, Profile | None],
    gpu: str,
    per_node: int,
    provider: str,
    region: str | None,
) -> str | None:
    """The instance type a service's node of ``per_node`` × ``gpu`` is on ``provider`` (in
    ``region`` where named): :func:`~gpuplan.cli.deploy_checks.smallest_shape` of the catalog's
    offers, held to one replica's weights as the plan stores them (a preset's traced here, as the
    fit check traces it; the user's own code only from its cached trace). None where the catalog
    cannot be opened or lists none."""
    from gpuplan.catalog.open_catalog import open_store
    from gpuplan.cli._profiles import load_profile
    from gpuplan.cli._settings import settings
    from gpuplan.cli.deploy_checks import Shape, cached_profile, smallest_shape
    from gpuplan.deploy.spec import replica_weights
    from gpuplan.errors import StoreError

    workload, prof = read
    db = settings(ctx).db
    if prof is None:
        prof = load_profile(workload, db) if workload.model.python is None else cached_profile(db, workload)
    stored = replica_weights(prof, workload) if prof is not None else None
    weights_gb = stored.gb if stored is not None else None
    try:
        store = open_store(db)
    except StoreError:
        return None
    try:
        offers = store.offers(
            gpu=gpu, count=per_node, provider=provider, region=region, include_unpriced=True
        )
    finally:
        store.close()
    shapes = {o.instance_type: Shape(o.instance_type, o.vcpus, o.memory_gib) for o in offers}
    return smallest_shape(list(shapes.values()), weights_gb)


def _catalog_instances(ctx: typer.Context) -> Instances | None:
    """The catalog's instance types (``Store.known_instances``), or None when it cannot be opened: a
    launch does not need it, and a catalog that cannot be opened says so where it is the job."""
    from gpuplan.catalog.open_catalog import open_store
    from gpuplan.cli._settings import settings
    from gpuplan.errors import StoreError

    try:
        store = open_store(settings(ctx).db)
    except StoreError:
        return None
    try:
        return store.known_instances()
    finally:
        store.close()


def _with_catalog_host(ctx: typer.Context, spec: LaunchSpec) -> LaunchSpec:
    """``spec`` with its instance's vCPUs and memory as the catalog lists them
    (:func:`~gpuplan.deploy.k8s.host.catalog_host`); unchanged where the catalog cannot be opened."""
    from gpuplan.catalog.open_catalog import open_store
    from gpuplan.cli._settings import settings
    from gpuplan.deploy.k8s.host import catalog_host
    from gpuplan.errors import StoreError

    try:
        store = open_store(settings(ctx).db)
    except StoreError:
        return spec
    try:
        return catalog_host(spec, store)
    finally:
        store.close()


def _spot_offers(ctx: typer.Context, spec: LaunchSpec) -> list[OfferPrice]:
    """The catalog's spot prices of the instance a training job deployed on spot runs on (its
    provider and region, its instance type where known, else its GPU and GPUs a node): the rows
    whose interruption band plan costs that offer at. Empty where no region is given (the launch
    may land in any), the job is not a training job on spot, or the catalog cannot be opened."""
    from gpuplan.catalog.open_catalog import open_store
    from gpuplan.cli._settings import settings
    from gpuplan.errors import StoreError
    from gpuplan.vocab import PricingModel

    if spec.pricing != PricingModel.SPOT or spec.task == "infer" or not spec.provider or not spec.region:
        return []
    try:
        store = open_store(settings(ctx).db)
    except StoreError:
        return []
    try:
        return store.offers(
            gpu=spec.gpu,
            count=spec.gpus_per_node,
            provider=spec.provider,
            region=spec.region,
            pricing=PricingModel.SPOT.value,
            instance_type=[spec.instance_type] if spec.instance_type else None,
        )
    finally:
        store.close()


def _past_deadline(workload: Workload, steps_h: float | None, spec: LaunchSpec) -> str | None:
    """Where the estimate's steps alone on the GPUs deployed outlast the workload's deadline: the
    warning, said before the files run (a plan would have refused them); None otherwise."""
    from gpuplan.i18n.numbers import format_hours

    deadline = workload.constraints.deadline_hours
    if deadline is None or steps_h is None or steps_h <= deadline:
        return None
    return _(
        "by the estimate its steps alone take {steps} on {count} × {gpu}, past its deadline of {deadline} "
        "(constraints.deadline), before any set-up or spot reclaim: `gpuplan plan` sizes GPUs that "
        "meet it"
    ).format(
        steps=format_hours(steps_h),
        count=spec.total_gpus,
        gpu=spec.gpu,
        deadline=format_hours(deadline),
    )


def _with_unlisted_network(ctx: typer.Context, spec: LaunchSpec) -> LaunchSpec:
    """A workload file's job on several nodes of an instance whose network the catalog does not
    list: ``spec`` with the rate ``gpuplan plan`` times it at (the estimator's slow bound), which
    deploy warns of; ``spec`` unchanged where the catalog lists one."""
    from gpuplan.hardware import get_gpu
    from gpuplan.perf.links import SLOW_NETWORK_GBIT_S

    assert spec.provider is not None and spec.instance_type is not None and spec.gpu is not None
    network = _catalog_networks(ctx, get_gpu(spec.gpu).id).get((spec.provider, spec.instance_type))
    if network is None or network.gbps is not None:
        return spec
    return spec.model_copy(update={"network_unlisted_gbps": SLOW_NETWORK_GBIT_S})


def _catalog_networks(ctx: typer.Context, gpu: str) -> dict[tuple[str, str], Network]:
    """The network of each instance type of ``gpu`` (``Store.instance_networks``), read only for a
    job laid out on several nodes; empty when the catalog cannot be opened (then none is known)."""
    from gpuplan.catalog.open_catalog import open_store
    from gpuplan.cli._settings import settings
    from gpuplan.cli.deploy_checks import Network
    from gpuplan.errors import StoreError

    try:
        store = open_store(settings(ctx).db)
    except StoreError:
        return {}
    try:
        return {key: Network(*net) for key, net in store.instance_networks(gpu).items()}
    finally:
        store.close()


def _warn_unsold_shape(instances: Instances, provider: str, gpu: str, count: int) -> None:
    """On stderr: the catalog lists no instance of ``provider`` with ``count`` x ``gpu`` on one node
    (``--gpu T4 --count 3`` on AWS): the launcher will find no machine. A warning, not a refusal: a
    catalog can lag a provider's newest shapes, and a partial one (a marketplace) lists a few."""
    counts = sorted({c for (p, _), (g, c) in instances.items() if p == provider and g == gpu})
    if count in counts:
        return
    if counts:
        line = _("warning: the catalog lists no {provider} instance with {count} x {gpu} (it lists {counts})")
    else:
        line = _("warning: the catalog lists no {provider} instance with {gpu}")
    shown = ", ".join(f"{c:g}" for c in counts)
    sys.stderr.write(line.format(provider=provider, count=count, gpu=gpu, counts=shown) + "\n")


def _warn_unoffered_pricing(
    ctx: typer.Context, provider: str, gpu: str, region: str | None, pricing: str, rules: ConstraintsSpec
) -> None:
    """On stderr: the catalog lists no ``pricing`` offer of ``gpu`` from ``provider`` in ``region``
    (in any region, when none is given), with the regions that have one (``--spot`` in a region where
    the provider sells that GPU by the hour only): the launch asks for capacity no price was seen
    for. A warning, as :func:`_warn_unsold_shape`'s: a catalog can lag. Nothing when the provider has
    no instance of ``gpu`` at all (that warning names it) or the catalog cannot be opened.

    The regions named are only those the workload's ``rules`` (``constraints.countries`` and
    ``regions``) allow, as the plan reads them: under ``countries: [CN]``, Alibaba's ``cn-hongkong``
    (Hong Kong, HK) is never offered in place of a mainland region."""
    from gpuplan.catalog.open_catalog import open_store
    from gpuplan.cli._settings import settings
    from gpuplan.deploy.residency import allowed_regions
    from gpuplan.errors import StoreError
    from gpuplan.i18n.phrases import item_list
    from gpuplan.vocab import pricing_name

    try:
        store = open_store(settings(ctx).db)
    except StoreError:
        return
    try:
        if not store.offers(gpu=gpu, provider=provider):
            return
        found = {o.region for o in store.offers(gpu=gpu, provider=provider, pricing=pricing)}
    finally:
        store.close()
    having = sorted(allowed_regions(provider, found, rules))
    if region is None:
        if having:
            return
        line = _("warning: the catalog lists no {pricing} offer of {gpu} from {provider} in any region")
    elif region in found:
        return
    elif having:
        line = _(
            "warning: the catalog lists no {pricing} offer of {gpu} from {provider} in {region} "
            "(it lists one in {regions})"
        )
    elif found:
        line = _(
            "warning: the catalog lists no {pricing} offer of {gpu} from {provider} in {region}, nor in "
            "any other region the workload's constraints (countries, regions) allow"
        )
    else:
        line = _(
            "warning: the catalog lists no {pricing} offer of {gpu} from {provider} in {region}, "
            "nor in any other region"
        )
    shown = line.format(
        pricing=pricing_name(pricing), gpu=gpu, provider=provider, region=region, regions=item_list(having)
    )
    sys.stderr.write(shown + "\n")


def _absolute(out: Path) -> str:
    """``--out`` as SkyPilot's workdir: absolute, links resolved (as write_files resolves it); a path
    that cannot be resolved (a NUL byte) is left to write_files to refuse in its own words."""
    try:
        return str(out.resolve())
    except (OSError, RuntimeError, ValueError):
        return str(out.absolute())


def _show_package_notes(spec: LaunchSpec, *, copying: bool, copied: bool) -> UserPackage | None:
    """On stderr, a line each: the third-party packages the user's code imports (written into the
    generated pyproject.toml, to add by hand, or, for torchrun, to install), and the files of the
    project that are not copied (:func:`gpuplan.deploy.user_package.package_notes`). Read again
    from the project as the copies were; nothing of it is run. The package read, for ``--json``."""
    from gpuplan.deploy.user_package import package_notes, user_package
    from gpuplan.errors import DeployError

    if not spec.model_entry_point or (copying and not copied):
        return None
    try:
        package = user_package(spec)
    except DeployError:  # torchrun: a project folder without the package (its note says how to install)
        return None
    for line in package_notes(package, copied=copying) if package else ():
        sys.stderr.write(_("note: {line}").format(line=line) + "\n")
    return package


def _dependencies_doc(package: UserPackage | None) -> dict[str, list[object]]:
    """``deploy --json``'s ``dependencies``: ``required``, each third-party top-level name the user's
    code imports, the requirement written for it (into the generated pyproject.toml; for torchrun, to
    install on each machine) or None where none is known, and how it was found (``pinned``,
    ``follows_torch``, ``not_installed``; ``unknown``, ``local``, ``ambiguous`` with no
    requirement); ``optional``, the names imported only where an ImportError is caught (or for type
    checking), not required. Empty where no package of the user's is read."""
    if package is None:
        return {"required": [], "optional": []}
    required: list[object] = [
        {
            "module": d.module,
            "requirement": d.requirement,
            "how": d.how,
            **({"distributions": list(d.distributions)} if d.distributions else {}),
        }
        for d in package.imports.dependencies
    ]
    return {"required": required, "optional": list(package.imports.optional)}


#: Copies listed before writing; --dry-run lists them all.
_SHOWN_COPIES = 20


def _show_copies(
    copies: list[GeneratedFile],
    out: Path,
    entry: str | None,
    *,
    everything: bool,
    copying: bool = True,
    install: str = "",
) -> None:
    """On stderr: which of the user's files go into ``out`` (source -> destination), or that their
    package is not copied. ``everything`` (--dry-run): every copy, said as what would happen.
    ``copying``: whether the target copies a package at all (torchrun's does not, --project or not);
    ``install``: how to make the package importable where it is not copied
    (:func:`gpuplan.deploy.user_package.install_hint`)."""
    if not copies:
        if entry and not copying:
            sys.stderr.write(
                _(
                    "note: --target torchrun copies no model code: install the package of model.python "
                    "{entry} on every machine that runs train.py ({install}); the docker, k8s and skypilot "
                    "targets copy it into their folder"
                ).format(entry=entry, install=install)
                + "\n"
            )
        elif entry:
            sys.stderr.write(
                _(
                    "note: the package of model.python {entry} is not copied (no project folder of it "
                    "lies in the folder you named); pass --project DIR to copy it from DIR"
                ).format(entry=entry)
                + "\n"
            )
        return
    size = sum(len(f.content.encode("utf-8")) for f in copies)
    line = (
        _("would copy {n} of your files ({kib:,.1f} KiB) into {out}/:")
        if everything
        else _("copying {n} of your files ({kib:,.1f} KiB) into {out}/:")
    )
    sys.stderr.write(line.format(n=len(copies), kib=size / 1024, out=out) + "\n")
    shown = copies if everything else copies[:_SHOWN_COPIES]
    for f in shown:
        sys.stderr.write(f"  {f.source} -> {f.path}\n")
    if len(shown) < len(copies):
        sys.stderr.write(
            _("  … and {more} more (--dry-run lists them all)").format(more=len(copies) - len(shown)) + "\n"
        )
