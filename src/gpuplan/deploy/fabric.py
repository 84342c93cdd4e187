"""The RDMA network between nodes that a multi-node plan priced, and what a launch file does about it.

A plan's time for a job on several nodes uses the network the catalog lists for the instance: 3,200
Gbit/s of EFA on a p5.48xlarge. That network is not on by default. On AWS it takes EFA interfaces
attached at launch, the EFA user-space libraries and AWS's NCCL plugin (aws-ofi-nccl) in the image,
and a few libfabric settings; without them NCCL falls back to TCP sockets over the instance's
ordinary network and the job runs slower and costs more than the plan said. The facts (interfaces
per instance type, the device plugin, an image that holds the plugin, the environment) are the
provider module's :class:`~gpuplan.catalog.providers.RdmaNetwork`; this module decides when a
launch needs them and words what the user must check.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpuplan.catalog.providers import PROVIDERS, facts
from gpuplan.catalog.providers.base import GpuNetworkSetup, RdmaNetwork
from gpuplan.deploy.base import commented
from gpuplan.deploy.grammar import vm_type
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.i18n.messages import _
from gpuplan.i18n.phrases import item_list

__all__ = [
    "GIVEN_RDMA_ENV",
    "Fabric",
    "NetworkToSetUp",
    "fabric",
    "fabric_note",
    "fabric_warning",
    "given_rdma_env",
    "given_rdma_launch_lines",
    "given_rdma_note",
    "network_to_set_up",
    "rdma_network",
    "skypilot_network_tier",
    "spans_nodes",
    "unlisted_network_warning",
]


@dataclass(frozen=True, kw_only=True)
class Fabric:
    """The RDMA network of the instance a multi-node plan priced."""

    network: RdmaNetwork
    instance: str
    """The instance type (a VM type name)."""
    interfaces: int
    """Its RDMA interfaces, each requested by a pod on Kubernetes."""

    @property
    def env(self) -> dict[str, str]:
        """The environment every rank needs: libfabric's provider, GPUDirect RDMA where supported."""
        gpudirect = self.instance in self.network.gpudirect_rdma
        return {**self.network.env, **(self.network.gpudirect_env if gpudirect else {})}


def spans_nodes(spec: LaunchSpec) -> bool:
    """Whether the ranks of one job talk across nodes: a training job on several nodes, or one
    inference replica split over more GPUs than a node has. A service's replicas and a batch job's
    shards are independent servers, each on one node (tensor × pipeline split within it), with no
    traffic between nodes: a plan of two p4d.24xlarge for two replicas of tensor parallel 8 needs no
    EFA, and a launch that asks for it pays for nothing."""
    if spec.nodes < 2:
        return False
    if spec.task == "infer":
        return spec.tensor_parallel * spec.pipeline_parallel > spec.gpus_per_node
    return True


def rdma_network(spec: LaunchSpec) -> RdmaNetwork | None:
    """The RDMA network of ``spec``'s provider when the job spans several nodes
    (:func:`spans_nodes`); None otherwise."""
    if not spans_nodes(spec) or spec.provider is None or spec.provider not in PROVIDERS:
        return None
    return facts(spec.provider).rdma


def fabric(spec: LaunchSpec) -> Fabric | None:
    """The RDMA network a multi-node ``spec``'s instance has (its interface count known), or None: one
    node, no instance type (a workload file), or an instance without one."""
    network = rdma_network(spec)
    vm = vm_type(spec.instance_type) if spec.instance_type else None
    if network is None or vm is None or vm not in network.interfaces:
        return None
    return Fabric(network=network, instance=vm, interfaces=network.interfaces[vm])


def _assumed(spec: LaunchSpec, net: Fabric | NetworkToSetUp) -> str:
    """ "the plan's 9.8 h assume EFA between the nodes of p5.48xlarge" in the user's language (a
    workload file, deployed with no plan: the estimate's)."""
    if not spec.planned:
        return _("gpuplan's estimate of this job assumes {fabric} between the {instance} nodes").format(
            fabric=net.network.name, instance=net.instance
        )
    if spec.job_time_h is not None:
        return _("the plan's time ({hours:.1f} h) assumes {fabric} between the {instance} nodes").format(
            hours=spec.job_time_h, fabric=net.network.name, instance=net.instance
        )
    return _("the plan's time assumes {fabric} between the {instance} nodes").format(
        fabric=net.network.name, instance=net.instance
    )


def fallback(spec: LaunchSpec, net: Fabric | NetworkToSetUp) -> str:
    """What happens without the network, and how to see the cost of it: one sentence."""
    if not spec.planned:
        return _(
            "without it NCCL falls back to TCP over the instance's ordinary network and the job takes "
            "longer and costs more than estimated (`gpuplan estimate WORKLOAD --instance {instance} -n "
            "{gpus} --network-kind tcp --network-gbps 100` shows how much at 100 Gbit/s)"
        ).format(instance=net.instance, gpus=spec.total_gpus)
    return _(
        "without it NCCL falls back to TCP over the instance's ordinary network and the job takes longer "
        "and costs more than planned (`gpuplan estimate WORKLOAD --instance {instance} -n {gpus} "
        "--network-kind tcp --network-gbps 100` shows how much at 100 Gbit/s)"
    ).format(instance=net.instance, gpus=spec.total_gpus)


@dataclass(frozen=True, kw_only=True)
class NetworkToSetUp:
    """A GPU network between a multi-node plan's instances that no target's files set up (Google
    Cloud's GPUDirect-TCPX/TCPXO, Azure's InfiniBand)."""

    network: GpuNetworkSetup
    instance: str
    """The instance type (a VM type name)."""


def network_to_set_up(spec: LaunchSpec) -> NetworkToSetUp | None:
    """The GPU network a multi-node ``spec``'s instance has that the launch must set up itself; None:
    no traffic between nodes (:func:`spans_nodes`), no instance type, or none known."""
    if (
        not spans_nodes(spec)
        or spec.provider is None
        or spec.provider not in PROVIDERS
        or not spec.instance_type
    ):
        return None
    vm = vm_type(spec.instance_type)
    for setup in facts(spec.provider).network_setups:
        if vm in setup.instances:
            return NetworkToSetUp(network=setup, instance=vm)
    return None


def fabric_warning(spec: LaunchSpec, target: str) -> str | None:
    """A warning for stderr where ``target``'s files cannot turn on the network the plan (or, for a
    workload file, the estimate) assumed, or turn on only part of it, in the user's language; None
    where they do, or there is none."""
    net = fabric(spec)
    if net is None:
        setup = network_to_set_up(spec)
        if setup is None:
            return unlisted_network_warning(spec)
        if target == "skypilot":
            if setup.network.skypilot_best:
                return None  # `network_tier: best` sets it up (skypilot_network_tier)
            return _(
                "{assumed}, which these files do not set up: SkyPilot's `network_tier: best` does not "
                "set it up on {instance} VMs; it needs {needs} ({source}); {fallback}"
            ).format(
                assumed=_assumed(spec, setup),
                instance=setup.instance,
                needs=_(setup.network.needs),
                source=setup.network.source,
                fallback=fallback(spec, setup),
            )
        return _(
            "{assumed}, which these files do not set up: it needs {needs} ({source}); {fallback}"
        ).format(
            assumed=_assumed(spec, setup),
            needs=_(setup.network.needs),
            source=setup.network.source,
            fallback=fallback(spec, setup),
        )
    if target == "k8s":
        # the PyTorchJob requests the interfaces; the cluster must offer them
        return _(
            "{assumed}: each pod of k8s/pytorchjob.yaml requests all {n} {fabric} interfaces of its "
            "{instance} ({resource}), which the cluster offers only with node groups with {fabric} enabled "
            "(eksctl `efaEnabled: true`, one Availability Zone) and the {fabric} device plugin (Helm chart "
            "`{chart}`, {doc}); these files install neither; {fallback}"
        ).format(
            assumed=_assumed(spec, net),
            n=net.interfaces,
            fabric=net.network.name,
            instance=net.instance,
            resource=net.network.k8s_resource,
            chart=net.network.k8s_plugin_chart,
            doc=net.network.k8s_plugin_doc,
            fallback=fallback(spec, net),
        )
    if target == "skypilot":
        if net.interfaces < 2:
            return None
        return _(
            "{assumed} with all {n} of its {fabric} interfaces; SkyPilot attaches them all only with "
            "`aws: use_internal_ips: true` in ~/.sky/config.yaml (see README.md), else one, with 1/{n} of "
            "that bandwidth"
        ).format(assumed=_assumed(spec, net), n=net.interfaces, fabric=net.network.name)
    if target == "docker":
        return _(
            "{assumed}: the image holds its NCCL plugin and the `docker run` in README.md hands the "
            "container its devices, but the instances must be launched with {fabric} interfaces; {fallback}"
        ).format(assumed=_assumed(spec, net), fabric=net.network.name, fallback=fallback(spec, net))
    return _(
        "{assumed}, which these files do not set up: launch the instances with {fabric} interfaces and "
        "run an image that holds its NCCL plugin (such as {image}); {fallback}"
    ).format(
        assumed=_assumed(spec, net),
        fabric=net.network.name,
        image=net.network.image,
        fallback=fallback(spec, net),
    )


def skypilot_network_tier(spec: LaunchSpec) -> NetworkToSetUp | None:
    """The GPU network of a multi-node ``spec``'s instance that SkyPilot's ``network_tier: best``
    sets up on its VMs (GPUDirect-TCPX on a3-highgpu-8g), or None."""
    setup = network_to_set_up(spec)
    return setup if setup is not None and setup.network.skypilot_best else None


def unlisted_network_warning(spec: LaunchSpec) -> str | None:
    """A warning for stderr where the job's nodes talk over a network the catalog does not list
    (:attr:`LaunchSpec.network_unlisted_gbps`): the rate its time takes, the flag that gives the
    real one, and how to measure it; None otherwise."""
    gbps = spec.network_unlisted_gbps
    if gbps is None or not spans_nodes(spec):
        return None
    instance = spec.instance_type or "?"
    check = _(
        "check what the nodes get before the full run: with NCCL_DEBUG=INFO the log names the transport "
        "NCCL took (`NET/Socket`: TCP), and nccl-tests' `all_reduce_perf` run across the nodes reports "
        "their bus bandwidth (busbw)"
    )
    if spec.planned:
        assumed = (
            _(
                "the plan's time ({hours:.1f} h) takes the network between the {instance} nodes at {gbps} "
                "Gbit/s TCP, the slowest a GPU instance is known to have, as the catalog lists none"
            )
            if spec.job_time_h is not None
            else _(
                "the plan's time takes the network between the {instance} nodes at {gbps} Gbit/s TCP, the "
                "slowest a GPU instance is known to have, as the catalog lists none"
            )
        ).format(hours=spec.job_time_h or 0.0, instance=instance, gbps=f"{gbps:g}")
        given = _("give the rate you measure to `gpuplan plan --network-gbps N --network-kind rdma|tcp`")
    else:
        assumed = _(
            "the catalog lists no network between the {instance} nodes: `gpuplan plan` times this job at "
            "{gbps} Gbit/s TCP, the slowest a GPU instance is known to have, and `gpuplan estimate` gives "
            "that as its slow bound"
        ).format(instance=instance, gbps=f"{gbps:g}")
        given = _("give the rate you measure to `--network-gbps N --network-kind rdma|tcp` of either")
    return _("{assumed}; {given}; {check}").format(assumed=assumed, given=given, check=check)


def fabric_note(spec: LaunchSpec, target: str) -> str:
    """A README paragraph for the targets that run on machines the user starts (torchrun, docker):
    the network the plan assumed and what these files leave to them; "" where there is none."""
    line = fabric_warning(spec, target)
    note = "\n" + _("Note: {line}.").format(line=line) + "\n" if line else ""
    given = given_rdma_note(spec)
    return note + ("\n" + given + "\n" if given else "")


#: What launch.sh sets where the plan timed the job over an RDMA network the user gave for an
#: instance the catalog gives none (``plan --network-kind rdma``): NCCL's own InfiniBand-verbs
#: transport (InfiniBand and RoCE), forced. NCCL_NET "forces NCCL to use a specific network … [so
#: that it] doesn't automatically fall back on the internal IB or Socket implementation"; its
#: internal names are "IB" (generic IB verbs) and "Socket" (TCP/IP sockets) (NVIDIA, NCCL User
#: Guide, "Environment Variables", NCCL_NET, since NCCL 2.10,
#: https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html). Without the fabric NCCL
#: then stops at its start instead of running the job over TCP sockets, far slower than planned.
#: Not the catalog's EFA settings (``RdmaNetwork.env``: libfabric's, AWS's alone).
GIVEN_RDMA_ENV = {"NCCL_NET": "IB"}


def given_rdma_env(spec: LaunchSpec) -> dict[str, str]:
    """:data:`GIVEN_RDMA_ENV` where ``spec``'s ranks talk across nodes over an RDMA network the
    plan took on the user's word (``LaunchSpec.network_given_rdma``) and the catalog knows no
    fabric of the instance; {} otherwise."""
    if not spec.network_given_rdma or not spans_nodes(spec) or fabric(spec) is not None:
        return {}
    return dict(GIVEN_RDMA_ENV)


def given_rdma_launch_lines(spec: LaunchSpec) -> str:
    """launch.sh's ``export`` of :func:`given_rdma_env`, with why; "" where there is none. A value
    already in the environment wins (``NCCL_NET=Socket bash launch.sh`` runs it over TCP)."""
    env = given_rdma_env(spec)
    if not env:
        return ""
    why = _(
        "The plan timed this job over the RDMA network you gave (--network-kind rdma), not one\n"
        "the catalog states: NCCL is held to InfiniBand/RoCE (IB verbs), so that without it\n"
        "the job stops at its start instead of running over TCP, slower than planned."
    )
    lines = "".join(f'export {k}="${{{k}:-{v}}}"\n' for k, v in env.items())
    return commented(why) + lines + "\n"


def given_rdma_note(spec: LaunchSpec) -> str:
    """The README's sentence on :func:`given_rdma_env` ("" where there is none)."""
    env = given_rdma_env(spec)
    if not env:
        return ""
    return _(
        "The plan's time takes the RDMA network you gave (`--network-kind rdma`) between the {instance} "
        "nodes: these settings follow your statement, not the catalog's, which gives {instance} no "
        "network. launch.sh sets {settings}, NCCL's InfiniBand/RoCE transport, so that a node without "
        "that fabric stops the job at its start instead of running it over TCP, slower and dearer than "
        "planned; to run over TCP anyway, start it with `NCCL_NET=Socket`."
    ).format(
        instance=spec.instance_type or "?",
        settings=item_list(f"`{k}={v}`" for k, v in env.items()),
    )
