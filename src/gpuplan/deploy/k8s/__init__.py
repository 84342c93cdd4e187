"""``--target k8s``: Kubernetes manifests for training (Job / PyTorchJob), serving (Deployment,
Service, HPA or KEDA; MIG or time-slicing) or batch inference (an Indexed Job), runnable on the
stock PyTorch image."""

from __future__ import annotations

from gpuplan.deploy.base import GeneratedFile, GenerateOptions, bullets, headed
from gpuplan.deploy.checkpoints import stop_grace_note
from gpuplan.deploy.docker import dockerfile, dockerignore
from gpuplan.deploy.engine import batch_engine_launch, engine_launch, hub_note, mainland_notes
from gpuplan.deploy.fabric import fabric, fabric_warning, given_rdma_note, rdma_network
from gpuplan.deploy.hub import gated
from gpuplan.deploy.images import image_torch_words, registry_note
from gpuplan.deploy.k8s.batch import batch_manifests, batch_readme
from gpuplan.deploy.k8s.nodes import gpu_selection_words, spot_fallback_words, spot_pool_words
from gpuplan.deploy.k8s.pods import container_image, host_readme_words
from gpuplan.deploy.k8s.serving import (
    HF_TOKEN_SECRET,
    in_flight_target,
    model_cache_words,
    quantity,
    serving_manifests,
    startup_words,
)
from gpuplan.deploy.k8s.storage import dataset_words, storage_first_words
from gpuplan.deploy.k8s.training import (
    checkpoint_claim,
    checkpoint_storage_first,
    shared_checkpoints,
    training_manifests,
)
from gpuplan.deploy.nccl_topology import topology_readme_note
from gpuplan.deploy.spec import (
    LaunchSpec,
    committed_ceiling_words,
    committed_floor_words,
    latency_share_words,
    max_replicas_words,
    peak_ceiling_words,
    peak_fleet_words,
    plan_floor_words,
    sizing_lengths,
    spare_words,
    split_option,
    unpriced_ceiling_words,
)
from gpuplan.deploy.torchrun import entry_point_files, serving_note, training_model_points
from gpuplan.deploy.user_package import DOCKERFILE, UserPackage, install_words, user_package
from gpuplan.errors import DeployError
from gpuplan.i18n.messages import N_, _
from gpuplan.perf.replica_load import replica_load_words
from gpuplan.vocab import COMMITTED_PRICING, pricing_name

__all__ = ["KubernetesGenerator"]


def _apply_commands(manifests: list[GeneratedFile]) -> str:
    return "\n".join(
        f"kubectl apply -f {f.path}"
        for f in manifests
        if f.path.endswith(".yaml") and "prometheus-adapter" not in f.path and "time-slicing" not in f.path
    )


def _manifests_readme(spec: LaunchSpec, manifests: list[GeneratedFile]) -> str:
    listed = "\n".join(f"- `{f.path.removeprefix('k8s/')}`" for f in manifests)
    title = _("{name}: the Kubernetes manifests").format(name=spec.name)
    where = _("Apply them from the folder above (its README.md says what the cluster needs first):")
    return f"""# {title}

{where}

```bash
{_apply_commands(manifests)}
```

{listed}
"""


def _image_note(spec: LaunchSpec, options: GenerateOptions) -> str:
    """Which image the pods run, and how to run the user's own."""
    launch = engine_launch(spec) or batch_engine_launch(spec)
    if launch is not None and not options.image:
        china = "".join(f"\n{n}" for n in mainland_notes(spec))
        secret = (
            _(
                "The pods run the engine's official image `{image}`; create the token Secret first: "
                "`{model}` is gated on the Hugging Face Hub, so the pods do not start without the "
                "Secret (CreateContainerConfigError), and its token must be of an account that has "
                "accepted the model's terms on its Hub page:"
            ).format(image=launch.image, model=spec.hf_model_id)
            if gated(spec.hf_model_id)
            else _(
                "The pods run the engine's official image `{image}`; create the token Secret first "
                "(only gated models need a real token):"
            ).format(image=launch.image)
        )
        return (
            secret
            + (
                "\n\n```bash\n"
                f"kubectl create secret generic {HF_TOKEN_SECRET} --from-literal=token=$HF_TOKEN\n```"
            )
            + china
        )
    if options.image:
        mine = _("The pods run your image `{image}` (built from the Dockerfile here).").format(
            image=options.image
        )
        hub = hub_note(spec)
        return f"{mine}\n{hub}" if hub else mine
    net = fabric(spec)
    if net is not None and not options.base_image:
        return _(
            "The pods run `{image}` with the code from `k8s/code-configmap.yaml`; to bake your own model "
            "into an image instead, `docker build` the Dockerfile (on the same image), push it, and re-run "
            "`gpuplan deploy ... --image REGISTRY/IMAGE:TAG`."
        ).format(image=net.network.image)
    stock = _(
        "The pods run the stock PyTorch image with the code from `k8s/code-configmap.yaml`; "
        "to bake your "
        "own model into an image instead, `docker build` the Dockerfile, push it, and re-run "
        "`gpuplan deploy ... --image REGISTRY/IMAGE:TAG`."
    )
    china = registry_note(spec.provider, spec.region)
    return f"{stock}\n{china}" if china else stock


def _replay_command(spec: LaunchSpec) -> str:
    """``gpuplan simulate autoscale`` of the autoscaler written: on the plan's instance where it has
    one (its prices, in its region: a bare GPU would be priced at the catalog's cheapest anywhere),
    from the replicas started, between the replicas' floor and ceiling."""
    import shlex

    assert spec.serving is not None
    where = (
        f"--instance {shlex.quote(spec.instance_type)}"
        if spec.instance_type and spec.provider
        else f"--gpu {spec.gpu}"
    )
    floor = spec.serving.min_replicas
    committed = ""
    if spec.pricing in COMMITTED_PRICING:
        # bought for the term: priced as bought (a monthly fleet replayed on demand had cost half as
        # much again), and never below them, since they are paid whether they run or not
        n = spec.serving.launch_replicas
        floor = max(floor, n)
        committed = f",commit={n}" + ("" if spec.pricing == "monthly" else f",commit_pricing={spec.pricing}")
    policy = f"queue:min={floor},max={max(spec.serving.max_replicas, floor)}{committed}"
    target = in_flight_target(spec)
    sizing = spec.engine_slots
    if (
        target is not None
        and sizing is not None
        and (spec.planned_share_gpu is not None or sizing.load_basis == "latency")
    ):
        # from the plan's figure, or below the headroom for its latency target: simulate's default
        # works the estimate out again from the workload alone, so the deployed target, said
        policy += f",per_replica={quantity(target)}"
    if spec.serving.start_replicas is not None:
        policy += f",start={spec.serving.start_replicas}"
    return f"gpuplan simulate autoscale WORKLOAD {where}{split_option(spec)} --policy {policy}"


def _notes(spec: LaunchSpec, options: GenerateOptions, package: UserPackage | None = None) -> list[str]:
    """The README's sentences on what serving, several nodes or spot capacity need; ``package``: the
    user's package copied beside the Dockerfile, which installs it."""
    serving = spec.task == "infer"
    extra = []
    if not serving:
        # what the Job's train.py trains: the user's model, or a stand-in said as such
        extra.extend(
            training_model_points(
                spec,
                "k8s",
                options,
                install_words(DOCKERFILE, package) if package else None,
                dataset_words(spec, _training_manifest(spec)),
            )
        )
        extra.append(image_torch_words(container_image(spec, options), spec.gpu_info))
        extra.append(
            headed(
                _("Runs"),
                _(
                    "Each `gpuplan deploy` is a new run with a new checkpoint volume: this one's is the PVC "
                    "`{claim}`, named once in k8s/checkpoints-pvc.yaml and the job. To resume this run, "
                    "apply these files again; to start a new run, deploy again (and delete the finished job "
                    "`{name}` first). Delete the PVC when the run is done: its volume is billed as storage."
                ).format(claim=checkpoint_claim(spec, options), name=spec.name),
            )
        )
        extra.append(headed(_("Stopping"), stop_grace_note(spec)))
        if topology := topology_readme_note(spec):
            extra.append(topology)
    per_pod = spec.tensor_parallel * spec.pipeline_parallel if serving else spec.gpus_per_node
    manifest = "k8s/deployment.yaml" if serving else _training_manifest(spec)
    if (host := host_readme_words(spec, per_pod, manifest)) is not None:
        extra.append(host)
    if serving:
        extra.append(serving_note(spec))
        if engine_launch(spec) is not None:
            extra.append(model_cache_words(options, _serving_pods_many(spec)))
            extra.extend(startup_words(spec, options))
        if (held := committed_ceiling_words(spec)) is not None:
            extra.append(held)
        if (raised := committed_floor_words(spec)) is not None:
            extra.append(raised)
        if (spare := spare_words(spec)) is not None:
            extra.append(spare)
        if (held_below := max_replicas_words(spec)) is not None:
            extra.append(held_below)
        if (fallback := spot_fallback_words(spec)) is not None:
            extra.append(fallback)
        if (above := unpriced_ceiling_words(spec)) is not None:
            extra.append(above)
        if (floor := plan_floor_words(spec)) is not None:
            extra.append(floor)
        if (fleet := peak_fleet_words(spec)) is not None:
            extra.append(fleet)
        if (ceiling := peak_ceiling_words(spec)) is not None:
            extra.append(ceiling)
        target = in_flight_target(spec)
        if target is not None:
            assert spec.serving is not None  # an engine serves a serving block
            sizing = spec.engine_slots
            assert sizing is not None  # in_flight_target's case
            counted = (
                _(
                    "the mean context of a running request on the request lengths of trace {trace} "
                    "(long answers hold their slots longer)"
                ).format(trace=sizing.trace)
                if sizing.trace is not None
                else _(
                    "the serving block's {prompt} prompt + half its {output} answer tokens, every request "
                    "taken at those lengths; `gpuplan deploy … --trace FILE.csv` counts them on your "
                    "traffic's lengths"
                ).format(prompt=spec.serving.prompt_tokens, output=spec.serving.output_tokens)
            )
            whence = replica_load_words(sizing.replica_load, sizing_lengths(sizing))
            steps = (
                (sizing.time_in_replica_s - sizing.first_token_s) / sizing.time_per_output_token_s
                if sizing.time_per_output_token_s > 0
                else 0.0
            )
            extra.append(
                _(
                    "The autoscaler holds {target} requests in flight (running + waiting) per replica, "
                    "{span}{starting}: what one replica holds at {load} requests/s ({whence}). By Little's "
                    "law the requests in a replica are its requests/s × the time each spends in it: {load} "
                    "× ({first} s to the first token + {steps:,.0f} more tokens × {tpot} ms a step at that "
                    "load = {seconds} s) = {product}, at most the {slots} requests one replica runs at once "
                    "(its KV cache at {context:,.0f} tokens a request: {counted}; at most the engine's own "
                    "limit). Holding 80 % of the slots instead would scale only near the replica's "
                    "capacity: the step time grows with the batch. `{command}` replays it on your traffic "
                    "(add --trace FILE.csv){shared}."
                ).format(
                    command=_replay_command(spec),
                    target=quantity(target),
                    load=f"{sizing.load_requests_per_s:.4g}",
                    whence=whence,
                    first=f"{sizing.first_token_s:.3g}",
                    steps=steps,
                    tpot=f"{sizing.time_per_output_token_s * 1e3:,.1f}",
                    seconds=f"{sizing.time_in_replica_s:.3g}",
                    product=f"{sizing.load_requests_per_s * sizing.time_in_replica_s:,.1f}",
                    starting=_(", starting with the {n} the plan priced for its load").format(
                        n=spec.serving.start_replicas
                    )
                    if spec.serving.start_replicas is not None
                    else "",
                    span=_("between {least} and {most} replicas").format(
                        least=spec.serving.min_replicas, most=spec.serving.max_replicas
                    )
                    if spec.serving.max_replicas > spec.serving.min_replicas
                    else _("at {n} replicas, no more and no fewer").format(n=spec.serving.min_replicas),
                    slots=sizing.slots,
                    context=sizing.context_tokens,
                    counted=counted,
                    shared=_(", with serving.share_gpu: {n} in the workload file").format(
                        n=spec.serving.share_gpu
                    )
                    if spec.serving.share_gpu > 1
                    else "",
                )
            )
            if (held := latency_share_words(spec.replica_load_share())) is not None:
                extra.append(held)
        if target is None and engine_launch(spec) is not None and spec.serving is not None:
            # gpuplan's own simulator runs this HPA at its cap for an engine (a decoding engine keeps a
            # kernel running at any load): ~3× the plan's cost in a diurnal day; said where it is written
            extra.append(
                _(
                    "Mind the cost of this autoscaler: it scales on GPU utilisation, which a serving "
                    "engine keeps high whenever it decodes, so it may run near maxReplicas ({most}) at a "
                    "light load. `gpuplan simulate autoscale` replays it (--policy gpu-util) beside a "
                    "policy on the engine's requests in flight (--policy queue) on your workload."
                ).format(most=spec.serving.max_replicas)
            )
    elif spec.nodes > 1:
        extra.append(
            _("Multi-node training uses the Kubeflow training operator (PyTorchJob kubeflow.org/v1).")
        )
        extra.extend(_network_notes(spec, options))
    if spec.spot and not serving:
        extra.append(_("Spot nodes: a reclaimed pod is replaced and resumes from the checkpoint PVC."))
        if not shared_checkpoints(spec):  # a ReadWriteMany claim is not held to one zone
            extra.append(
                _(
                    "Its ReadWriteOnce volume stays in one zone, so a replacement waits for spot capacity "
                    "there; k8s/checkpoints-pvc.yaml names a ReadWriteMany class that lets it start in any "
                    "zone."
                )
            )
    elif spec.spot and spec.spare_replicas > 0:
        # the spare is in the manifests (the Deployment's replicas, the autoscaler's floor)
        extra.append(
            _(
                "Spot nodes: a reclaimed replica is rescheduled, and the spare the plan priced carries "
                "its share of the load while its replacement starts."
            )
        )
    elif spec.spot:
        extra.append(
            _("Spot nodes: a reclaimed replica is rescheduled; keep min replicas above 1 for availability.")
        )
    return extra


def _first_steps(spec: LaunchSpec, options: GenerateOptions) -> list[str]:
    """What the cluster needs before the manifests are applied, in the order to do it: the
    checkpoint claim's class, what the autoscaler reads its metric through, the GPU sharing, and the
    node labels the pods select that the cluster may not have (the README says them before its
    ``kubectl apply`` block: a step said after it reads as one to do after)."""
    steps = [checkpoint_storage_first(spec)]
    if spec.task != "infer":  # the class the claims and the dataset volume name, before the claims
        steps.insert(0, storage_first_words(spec))
    if spec.task == "infer":
        if in_flight_target(spec) is not None:
            steps.append(
                _(
                    "Scaling needs Prometheus run by the Prometheus Operator (kube-prometheus-stack) for "
                    "`k8s/podmonitor.yaml`, and KEDA (keda.sh)."
                )
                if options.autoscaler == "keda"
                else _(
                    "Scaling needs Prometheus run by the Prometheus Operator (kube-prometheus-stack) for "
                    "`k8s/podmonitor.yaml`; install prometheus-adapter with "
                    "`k8s/prometheus-adapter-values.yaml` first."
                )
            )
        else:
            steps.append(
                _("Scaling needs NVIDIA dcgm-exporter and Prometheus; KEDA (keda.sh).")
                if options.autoscaler == "keda"
                else _(
                    "Scaling needs NVIDIA dcgm-exporter and Prometheus; "
                    "install prometheus-adapter with `k8s/prometheus-adapter-values.yaml` first."
                )
            )
        if spec.serving and spec.serving.share_gpu > 1:
            steps.append(
                _("Apply `k8s/time-slicing-config.yaml` and patch the ClusterPolicy (see its header) first.")
            )
        if spec.serving and spec.serving.mig_profile:
            steps.append(
                _(
                    "The GPU nodes must be partitioned into {profile} MIG slices "
                    "(GPU Operator `nvidia.com/mig.config` label, mixed strategy)."
                ).format(profile=spec.serving.mig_profile)
            )
    steps += [gpu_selection_words(spec), spot_pool_words(spec)]
    return [step for step in steps if step]


def _training_manifest(spec: LaunchSpec) -> str:
    """The training job's manifest: a Job on one node, a PyTorchJob across nodes."""
    return "k8s/job.yaml" if spec.nodes == 1 else "k8s/pytorchjob.yaml"


def _serving_pods_many(spec: LaunchSpec) -> bool:
    """Whether the service may run replicas on several nodes (more than one replica at its most)."""
    assert spec.serving is not None  # an engine serves a serving block
    return max(spec.serving.max_replicas, spec.serving.launch_replicas) > 1


def _network_notes(spec: LaunchSpec, options: GenerateOptions) -> list[str]:
    """The README's sentences on the RDMA network between nodes the plan priced (EFA)."""
    network = rdma_network(spec)
    given = given_rdma_note(spec)
    if network is None or given:
        return [given] if given else []
    net = fabric(spec)
    if net is None:
        return [
            _(
                "On {fabric} instances, request the node's {fabric} interfaces ({resource}) in "
                "k8s/pytorchjob.yaml and install the {fabric} device plugin (Helm chart `{chart}`, {doc}): "
                "without them NCCL talks TCP between nodes."
            ).format(
                fabric=network.name,
                resource=network.k8s_resource,
                chart=network.k8s_plugin_chart,
                doc=network.k8s_plugin_doc,
            )
        ]
    # the warning deploy prints on stderr, said the same in the README
    notes = [_("Note: {line}.").format(line=fabric_warning(spec, "k8s"))]
    if not options.image and not options.base_image:
        notes.append(
            _("That image holds {fabric}'s libraries and AWS's NCCL plugin ({source}).").format(
                fabric=network.name, source=network.image_source
            )
        )
    else:
        notes.append(
            _("Your image must hold {fabric}'s libraries and AWS's NCCL plugin, as {image} does.").format(
                fabric=network.name, image=network.image
            )
        )
    return notes


def _readme(
    spec: LaunchSpec, options: GenerateOptions, manifests: list[GeneratedFile], package: UserPackage | None
) -> str:
    """README.md in the user's language; the commands in it are the same in every language."""
    title = _("{name}: Kubernetes").format(name=spec.name)
    needs = _("Needs a cluster with NVIDIA GPUs and the NVIDIA device plugin (or GPU Operator).")
    notes = bullets(_notes(spec, options, package))
    selectors = (
        _(
            "Node selectors and tolerations follow the plan ({provider}, {pricing}); notes in\n"
            "each manifest's header say which labels to check on your cluster "
            "(`kubectl get nodes --show-labels`)."
        )
        if spec.planned
        else _(
            "Node selectors and tolerations follow the provider and pricing given ({provider}, "
            "{pricing}); notes in each manifest's header say which labels to check on your cluster "
            "(`kubectl get nodes --show-labels`)."
        )
    ).format(provider=spec.provider or _("no provider"), pricing=pricing_name(spec.pricing))
    # every step the cluster needs before the manifests are applied goes before the commands
    steps = _first_steps(spec, options)
    before = _("Before applying them:")
    first = f"\n{before}\n\n{bullets(steps)}\n" if steps else ""
    return f"""# {title}

{needs}
{_image_note(spec, options)}
{first}
```bash
{_apply_commands(manifests)}
```

{notes}

{selectors}
"""


class KubernetesGenerator:
    """Manifests for a managed Kubernetes GPU pool (EKS, AKS, GKE, ACK, TKE, CCE, VKE)."""

    name = "k8s"
    copies_user_package = True
    summary = (
        "Kubernetes: Job or Kubeflow PyTorchJob for training; Deployment + Service + HPA/KEDA for serving; "
        "an Indexed Job for batch inference"
    )

    def generate(self, spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
        if spec.model_entry_point and not options.image:
            # The pods would run the stock image, which does not hold the user's package: a Job that
            # fails on import. The image that holds it comes first.
            raise DeployError.worded(
                N_(
                    "the model is your own code ({entry}), which the stock PyTorch image does not hold: "
                    "write the image with `--target docker`, build and push it, then give it here with "
                    "--image REGISTRY/IMAGE:TAG"
                ),
                entry=spec.model_entry_point,
            )
        code = entry_point_files(spec, options)
        if spec.batch_inference:
            manifests = batch_manifests(spec, options, code)
        elif spec.task == "infer":
            manifests = serving_manifests(spec, options, code)
        else:
            manifests = training_manifests(spec, options, code)
        package = user_package(spec)
        return [
            *code,
            *(package.files if package else ()),
            GeneratedFile(path="Dockerfile", content=dockerfile(spec, options, package, "k8s")),
            GeneratedFile(path=".dockerignore", content=dockerignore()),
            *manifests,
            GeneratedFile(path="k8s/README.md", content=_manifests_readme(spec, manifests)),
            GeneratedFile(
                path="README.md",
                content=batch_readme(spec, options, _image_note(spec, options))
                if spec.batch_inference
                else _readme(spec, options, manifests, package),
            ),
        ]
