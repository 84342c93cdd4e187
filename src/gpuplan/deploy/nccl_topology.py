"""The topology file NCCL needs on an instance where its own detection of the layout is slower.

On an AWS g5.48xlarge, NCCL's own detection of the GPUs' layout inside the VM makes all-reduce
slower than AWS's topology file for it does, and a multi-GPU job runs slower than gpuplan estimated
from the instance's link (the provider module's
:class:`~gpuplan.catalog.providers.base.NcclTopologyFile`, with its sources). The launch files name
the file: launch.sh as a commented ``export NCCL_TOPO_FILE=…`` line, the README in a sentence. Where
it lies on a machine is not gpuplan's to know (an image or AMI may hold it, or not): the user points
the variable at their copy.
"""

from __future__ import annotations

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.catalog.providers.base import NcclTopologyFile
from gpuplan.deploy.base import commented
from gpuplan.deploy.grammar import vm_type
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _

__all__ = ["topology_file", "topology_launch_lines", "topology_readme_note"]


def topology_file(spec: LaunchSpec) -> NcclTopologyFile | None:
    """The topology file for the node of a training (or fine-tuning) ``spec`` with several GPUs a
    node; None where none is known. A spec with an instance type matches by it; one without (a
    workload deployed with ``--gpu A10G -n 8``) by its node's GPUs, which only that instance
    carries."""
    if spec.task == "infer" or spec.gpus_per_node < 2:
        return None
    if spec.provider is not None:
        providers: tuple[str, ...] = (spec.provider,) if spec.provider in PROVIDERS else ()
    else:
        providers = tuple(PROVIDERS)
    vm = vm_type(spec.instance_type) if spec.instance_type else None
    for provider in providers:
        for known in facts(provider).nccl_topology_files:
            if vm == known.instance or (
                vm is None and spec.gpu == known.gpu and spec.gpus_per_node == known.gpus
            ):
                return known
    return None


def topology_launch_lines(spec: LaunchSpec) -> str:
    """launch.sh's commented ``export NCCL_TOPO_FILE=…`` with why and where the file is published;
    "" where no file is known."""
    known = topology_file(spec)
    if known is None:
        return ""
    why = _(
        "{instance}: with NCCL's own detection of this instance's layout, all-reduce can run slower\n"
        "than it could ({report}). AWS publishes a topology file for it,\n"
        "{url}:\n"
        "download it and point NCCL_TOPO_FILE at your copy."
    ).format(instance=known.instance, report=known.report_url, url=known.url)
    return commented(why) + f"# export NCCL_TOPO_FILE=/path/to/{known.file_name}\n"


def topology_readme_note(spec: LaunchSpec) -> str:
    """The README's sentence on the topology file; "" where no file is known."""
    known = topology_file(spec)
    if known is None:
        return ""
    return _(
        "**On {instance}, set NCCL_TOPO_FILE.** With NCCL's own detection of this instance's layout, "
        "all-reduce can run slower than gpuplan estimated: {reported} ({report}). The file is "
        "`{file}`, published at {url}: download it and point `NCCL_TOPO_FILE` at your copy (the "
        "commented line in launch.sh)."
    ).format(
        instance=known.instance,
        report=known.report_url,
        reported=_(known.reported),
        file=known.file_name,
        url=known.url,
    )
