"""``--target k8s``: Kubernetes manifests for training (Job / PyTorchJob) or serving (Deployment,
Service, HPA or KEDA; MIG or time-slicing), runnable on the stock PyTorch image."""

from __future__ import annotations

from gpuplan.deploy.base import GeneratedFile, GenerateOptions
from gpuplan.deploy.docker import DOCKERIGNORE, dockerfile
from gpuplan.deploy.k8s.serving import serving_manifests
from gpuplan.deploy.k8s.training import training_manifests
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.deploy.torchrun import entry_point_files, serving_note
from gpuplan.deploy.user_package import user_package

__all__ = ["KubernetesGenerator"]


def _apply_commands(manifests: list[GeneratedFile]) -> str:
    return "\n".join(
        f"kubectl apply -f {f.path}"
        for f in manifests
        if f.path.endswith(".yaml") and "prometheus-adapter" not in f.path and "time-slicing" not in f.path
    )


def _manifests_readme(spec: LaunchSpec, manifests: list[GeneratedFile]) -> str:
    listed = "\n".join(f"- `{f.path.removeprefix('k8s/')}`" for f in manifests)
    return f"""# {spec.name}: the Kubernetes manifests

Apply them from the folder above (its README.md says what the cluster needs first):

```bash
{_apply_commands(manifests)}
```

{listed}
"""


def _readme(spec: LaunchSpec, options: GenerateOptions, manifests: list[GeneratedFile]) -> str:
    serving = spec.task == "infer"
    apply_order = _apply_commands(manifests)
    own_model = (
        " Your model's package is not in the stock image: build this Dockerfile (it installs project/), "
        "push it, and re-run with `--image REGISTRY/IMAGE:TAG`."
        if spec.model_entry_point
        else ""
    )
    image = (
        f"The pods run your image `{options.image}` (built from the Dockerfile here)."
        if options.image
        else "The pods run the stock PyTorch image with the code from `k8s/code-configmap.yaml`; "
        "to bake your "
        "own model into an image instead, `docker build` the Dockerfile, push it, and re-run "
        "`gpuplan deploy ... --image REGISTRY/IMAGE:TAG`." + own_model
    )
    extra = []
    if serving:
        extra.append(serving_note(spec))
        extra.append(
            "Scaling needs NVIDIA dcgm-exporter and Prometheus; "
            + (
                "KEDA (keda.sh)."
                if options.autoscaler == "keda"
                else "install prometheus-adapter with `k8s/prometheus-adapter-values.yaml` first."
            )
        )
        if spec.serving and spec.serving.share_gpu > 1:
            extra.append(
                "Apply `k8s/time-slicing-config.yaml` and patch the ClusterPolicy (see its header) first."
            )
        if spec.serving and spec.serving.mig_profile:
            extra.append(
                f"The GPU nodes must be partitioned into {spec.serving.mig_profile} MIG slices "
                "(GPU Operator `nvidia.com/mig.config` label, mixed strategy)."
            )
    elif spec.nodes > 1:
        extra.append("Multi-node training uses the Kubeflow training operator (PyTorchJob kubeflow.org/v1).")
    if spec.spot and not serving:
        extra.append("Spot nodes: a reclaimed pod is replaced and resumes from the checkpoint PVC.")
    elif spec.spot:
        extra.append(
            "Spot nodes: a reclaimed replica is rescheduled; keep min replicas above 1 for availability."
        )
    return f"""# {spec.name}: Kubernetes

Needs a cluster with NVIDIA GPUs and the NVIDIA device plugin (or GPU Operator).
{image}

```bash
{apply_order}
```

{" ".join(extra)}

Node selectors and tolerations follow the plan ({spec.provider or "no provider"}, {spec.pricing}); notes in
each manifest's header say which labels to check on your cluster (`kubectl get nodes --show-labels`).
"""


class KubernetesGenerator:
    """Manifests for a managed Kubernetes GPU pool (EKS, AKS, GKE, ACK, TKE, CCE, VKE)."""

    name = "k8s"
    summary = (
        "Kubernetes: Job or Kubeflow PyTorchJob for training; Deployment + Service + HPA/KEDA for serving"
    )

    def generate(self, spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
        code = entry_point_files(spec, options)
        if spec.task == "infer":
            manifests = serving_manifests(spec, options, code)
        else:
            manifests = training_manifests(spec, options, code)
        package = user_package(spec)
        return [
            *code,
            *(package.files if package else ()),
            GeneratedFile(path="Dockerfile", content=dockerfile(spec, options, package)),
            GeneratedFile(path=".dockerignore", content=DOCKERIGNORE),
            *manifests,
            GeneratedFile(path="k8s/README.md", content=_manifests_readme(spec, manifests)),
            GeneratedFile(path="README.md", content=_readme(spec, options, manifests)),
        ]
