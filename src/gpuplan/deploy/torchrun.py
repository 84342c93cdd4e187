"""``--target torchrun``: train.py (DDP/FSDP, checkpoint-and-resume) and launch.sh for torchrun.

The other targets reuse :func:`entry_point_files`: a container, a Kubernetes pod and a SkyPilot node
all end up running the same launch.sh and train.py.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import unicodedata
from importlib import resources

from gpuplan.deploy.base import GeneratedFile, GenerateOptions, bullets, commented, double_quoted, headed
from gpuplan.deploy.batch import VLLM_RUNNER, no_gpu_note, sentences
from gpuplan.deploy.checkpoints import (
    checkpoint_disk_note,
    checkpoint_interval_min,
    dataset_copy_note,
    skypilot_dataset_note,
    spot_notice_note,
)
from gpuplan.deploy.engine import (
    batch_engine_launch,
    engine_launch,
    engine_note,
    serve_py_reason,
    unpriced_share,
)
from gpuplan.deploy.fabric import fabric_note, given_rdma_launch_lines
from gpuplan.deploy.images import in_mainland_china, maybe_mainland_china
from gpuplan.deploy.instead import instead
from gpuplan.deploy.loader_workers import assumed_by, planned_workers
from gpuplan.deploy.nccl_topology import topology_launch_lines, topology_readme_note
from gpuplan.deploy.preset_model import PRESET_MODULE, preset_inputs, preset_model_py, written_preset
from gpuplan.deploy.resume_memory import resume_memory_warning
from gpuplan.deploy.spec import LaunchSpec
from gpuplan.deploy.user_package import (
    TORCH_CONSTRAINTS,
    install_hint,
    package_notes,
    pin_torch,
    user_package,
)
from gpuplan.errors import DeployError
from gpuplan.i18n.error_text import phrase_text
from gpuplan.i18n.messages import N_, _, ngettext
from gpuplan.i18n.phrases import listed

__all__ = [
    "DEFAULT_STEPS",
    "MASTER_PORT",
    "NEW_RUN",
    "STAND_IN_CHECK_CKPT_EVERY",
    "STAND_IN_CHECK_STEPS",
    "TorchrunGenerator",
    "entry_point_files",
    "full_steps",
    "gpu_count_note",
    "loader_note",
    "render_train_py",
    "stand_in_check",
    "stand_in_warning",
    "steps_note",
    "total_steps",
]

#: Optimizer steps when the workload gives no samples x epochs to derive them from.
DEFAULT_STEPS = 1000

#: Optimizer steps of a stand-in model's run unless --steps says otherwise: a check of the launch,
#: not the plan's run (a stand-in trained on synthetic data for the plan's 187,671 steps of a
#: ViT-B/16 on 8 × H200 spot costs the plan's $67 and trains nothing of use). 200 steps at train.py's
#: log interval of 10 give 20 samples/s figures, the first few with the warm-up (CUDA context, cuDNN
#: autotuning, torch.compile) and the rest the steady rate; with a checkpoint at step 100
#: (:data:`STAND_IN_CHECK_CKPT_EVERY`) and the last one at step 200 it writes two, the second
#: rotating the first out (train.py keeps two on disk), and a launch again with a higher --steps
#: resumes from step 200. A stand-in's step is milliseconds to a second: a minute or so of GPU time
#: after the start-up, which a cloud launch pays anyway.
STAND_IN_CHECK_STEPS = 200
#: The stand-in check's checkpoint interval in steps (train.py's --ckpt-every-steps default).
STAND_IN_CHECK_CKPT_EVERY = 100

#: torchrun's conventional rendezvous port (its own default for --master-port).
MASTER_PORT = 29500

#: launch.sh's exit status after an interrupted run: 128 + SIGTERM, what train.py exits with after
#: its checkpoint, and what the k8s podFailurePolicy and SkyPilot's recover_on_exit_codes expect.
EXIT_PREEMPTED = 143

_SETTINGS = re.compile(r"# >>> gpuplan settings.*?\n(.*?)# <<< gpuplan settings", re.S)


def total_steps(spec: LaunchSpec, options: GenerateOptions, samples: int | None = None) -> int:
    """Optimizer steps for the job: the option's count, else a stand-in's check
    (:func:`stand_in_check`), else the full run (:func:`full_steps`)."""
    if isinstance(options.steps, int):
        return options.steps
    if stand_in_check(spec, options, samples):
        return STAND_IN_CHECK_STEPS
    return full_steps(spec, samples)


def full_steps(spec: LaunchSpec, samples: int | None) -> int:
    """The workload's whole run: samples x epochs (``samples``) / global batch, else 1000."""
    if samples:
        global_batch = spec.batch_size * spec.total_gpus * spec.gradient_accumulation
        return max(1, math.ceil(samples / global_batch))
    return DEFAULT_STEPS


def stand_in_check(spec: LaunchSpec, options: GenerateOptions, samples: int | None) -> bool:
    """Whether train.py runs a short check (:data:`STAND_IN_CHECK_STEPS`) rather than the full run:
    a stand-in model (not the user's own code) trained, no --steps given, and a full run longer
    than the check."""
    return (
        options.steps is None
        and spec.model_entry_point is None
        and spec.task != "infer"
        and full_steps(spec, samples) > STAND_IN_CHECK_STEPS
    )


def stand_in_warning(spec: LaunchSpec, options: GenerateOptions) -> str | None:
    """deploy's stderr line where train.py trains its stand-in (a preset or a Hugging Face config,
    which train.py cannot rebuild without gpuplan): put the model in build_model() (a fine-tune's
    Hub weights named), and the steps it runs against the full run's. None for the user's own model
    code and for inference."""
    if spec.task == "infer" or spec.model_entry_point:
        return None
    samples = spec.train_samples
    if written_preset(spec):
        # the preset's own model: only a check of the launch (its data is synthetic) is said
        if not stand_in_check(spec, options, samples):
            return None
        return _(
            "train.py trains {source} on synthetic data: by default it runs {steps} steps, a check of the "
            "launch, where the full run is {full:,} (--steps full); put your data in build_dataset() first"
        ).format(source=spec.model_source, steps=STAND_IN_CHECK_STEPS, full=full_steps(spec, samples))
    steps = total_steps(spec, options, samples)
    if stand_in_check(spec, options, samples):
        run = _(
            "by default it runs {steps} steps, a check of the launch, where the full run is {full:,} "
            "(--steps full)"
        ).format(steps=steps, full=full_steps(spec, samples))
    else:
        run = ngettext("it runs {steps:,} step", "it runs {steps:,} steps", steps).format(steps=steps)
    weights = ""
    if spec.task == "finetune" and spec.hf_model_id:
        weights = _(" (this fine-tune's weights: `{model}` from the Hugging Face Hub)").format(
            model=spec.hf_model_id
        )
    return _(
        "train.py trains a small stand-in model on synthetic data, not {source}: put your model in "
        "build_model(){weights} and your data in build_dataset() before launching; {run}"
    ).format(source=spec.model_source, weights=weights, run=run)


def steps_note(spec: LaunchSpec, options: GenerateOptions) -> str:
    """What train.py's step count is, where a stand-in runs a check (a README sentence; "" else)."""
    samples = spec.train_samples
    if not stand_in_check(spec, options, samples):
        return ""
    return _(
        "By default train.py runs a short check of the launch, {steps} steps with a checkpoint at step "
        "{every} and one at the end, and logs samples/s every 10 steps: the model trained for the "
        "job's full {full:,} steps on synthetic data would cost that run's time and money and train "
        "nothing of use. Launched again with a higher `--steps`, it resumes from the last checkpoint "
        "and checkpoints every {interval} min, not every {every} steps. "
        "For the full run pass `--steps {full}` to train.py, or deploy again with `--steps full`."
    ).format(
        steps=STAND_IN_CHECK_STEPS,
        every=STAND_IN_CHECK_CKPT_EVERY,
        full=full_steps(spec, samples),
        interval=f"{checkpoint_interval_min(spec):.1f}",
    )


def _literal(value: object) -> str:
    """A Python literal for a setting: strings through json (ASCII, every control and line-separator
    character escaped, and JSON's escapes are Python's too); numbers finite only (``inf`` is not
    Python syntax: it would be a NameError in train.py)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=True)
    if isinstance(value, float) and not math.isfinite(value):
        raise DeployError.worded(
            N_("refusing to write a non-finite setting ({value!r}) into train.py"), value=value
        )
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    raise TypeError(f"no Python literal for {type(value).__name__}")  # pragma: no cover - generator bug


def render_train_py(spec: LaunchSpec, options: GenerateOptions) -> str:
    """The template with its settings block replaced by this job's values."""
    template = _template("train_entry.py")
    samples = spec.train_samples
    workers = planned_workers(spec)
    check = stand_in_check(spec, options, samples)
    if isinstance(options.steps, int):
        steps_basis = "the --steps given to gpuplan deploy"
    elif check:
        steps_basis = (
            f"a short check of the launch on synthetic data; the full run is "
            f"{full_steps(spec, samples)} steps"
        )
    elif samples:
        steps_basis = "the workload's samples x epochs / global batch"
    else:
        steps_basis = "the workload gives no samples x epochs"
    values = {
        "JOB_NAME": spec.name,
        "MODEL_SOURCE": spec.model_source,
        "MODEL_ENTRY_POINT": spec.model_entry_point,
        "PRESET": spec.preset if written_preset(spec) else None,
        "PARALLELISM": spec.parallelism,
        "PRECISION": spec.precision,
        "OPTIMIZER": spec.optimizer,
        "BATCH_SIZE": spec.batch_size,
        **preset_inputs(spec),
        "GRADIENT_ACCUMULATION": spec.gradient_accumulation,
        "GRADIENT_CHECKPOINTING": spec.gradient_checkpointing,
        "COMPILE": spec.compile,
        "TOTAL_STEPS": total_steps(spec, options, samples),
        "STEPS_BASIS": steps_basis,
        "CKPT_EVERY_STEPS": STAND_IN_CHECK_CKPT_EVERY if check else 0,
        "DATASET_SIZE": spec.dataset_samples or 10000,
        "NUM_WORKERS": workers.count,
        "NUM_WORKERS_BASIS": workers.basis,
        "CHECKPOINT_INTERVAL_MIN": checkpoint_interval_min(spec),
        "KEEP_CHECKPOINTS": spec.keep_checkpoints,
    }
    match = _SETTINGS.search(template)
    if match is None:  # pragma: no cover - the template ships with the package
        raise RuntimeError("train_entry.py lost its settings markers")
    block = match.group(1)
    for key, value in values.items():
        # Replace the value, keep the annotation and the comment that explain it.
        block, n = re.subn(
            rf"^({key}(?:: [^=]+)? = )[^#\n]*?(\s*#.*)?$",
            lambda m, v=value: f"{m.group(1)}{_literal(v)}{m.group(2) or ''}",
            block,
            count=1,
            flags=re.M,
        )
        if n != 1:  # pragma: no cover - guards the template against drift
            raise RuntimeError(f"train_entry.py has no setting {key}")
    return template[: match.start(1)] + block + template[match.end(1) :]


#: Runs torchrun as a child instead of exec-ing it, so that this script (PID 1 in a container, the
#: process Kubernetes and `docker stop` signal) forwards SIGTERM/SIGINT to it once and exits with
#: 143 after an interrupted run. torchrun itself exits 1 when signalled (its SignalException), which
#: a Job's podFailurePolicy and SkyPilot's recover_on_exit_codes would count as a genuine failure.
#: `set -m` gives torchrun its own process group, so a signal to this script's group reaches torchrun
#: once (from here), never twice: a second SIGTERM would cut short torchrun's wait for its ranks'
#: checkpoint.
def gpu_count_note(spec: LaunchSpec) -> str:
    """What train.py does when it resumes on another number of GPUs (a README paragraph): it keeps
    the global batch, so the counts that work are those that divide GPUs x accumulation steps."""
    per_batch = spec.total_gpus * spec.gradient_accumulation  # global batch / per-GPU batch
    small = [n for n in range(1, math.isqrt(per_batch) + 1) if per_batch % n == 0]
    counts = sorted({*small, *(per_batch // n for n in small)})
    whole = (
        _(
            "The model and optimizer are checkpointed in parts with torch.distributed.checkpoint (each GPU "
            "writes its own where every GPU sees the checkpoint folder, else rank 0 writes them whole), "
            "which reshards them on any count."
        )
        if spec.parallelism == "fsdp"
        else _("The model and optimizer are checkpointed whole, so they load on any count.")
    )
    return _(
        "**If the GPU count changes between runs** (a spot node is lost, capacity comes back with fewer "
        "GPUs), train.py resumes on the GPUs there are: give launch.sh their number in NPROC_PER_NODE "
        "(GPUs per node) and, on several nodes, NNODES. {whole} "
        "train.py keeps the global batch, {global_batch} samples ({batch} per GPU × {gpus} GPUs × "
        "{steps} accumulation step(s)), and with it the learning-rate schedule, by recomputing the "
        "accumulation steps, and it goes on after the samples of the epoch already seen. It says so in "
        "one WARNING line: the run is correct but not bit-identical to an uninterrupted one (each GPU's "
        "random state is reseeded). A GPU count that would need a fractional number of accumulation "
        "steps is refused with one line; with this batch these counts work: {counts}."
    ).format(
        whole=whole,
        global_batch=spec.batch_size * per_batch,
        batch=spec.batch_size,
        gpus=spec.total_gpus,
        steps=spec.gradient_accumulation,
        counts=phrase_text(listed(counts)),
    )


def _run_torchrun() -> str:
    """launch.sh's ``run_torchrun`` function, its comment and message in the current language."""
    waited = _("wait returned for a signal: torchrun still runs")
    interrupted = shlex.quote(
        _("launch.sh: interrupted; run the same command to resume from the newest checkpoint")
    )
    quiet = _(
        "torchrun's own entry point (python -m torch.distributed.run), less the traceback it prints\n"
        "when it is signalled: the line below says what happened."
    )
    return f"""{commented(quiet)}TORCHRUN='import sys
from torch.distributed.elastic.multiprocessing.api import SignalException
from torch.distributed.run import main
try:
    main()
except SignalException:
    sys.exit(1)'
run_torchrun() {{
  local child="" interrupted=0 status=0
  trap 'interrupted=1; [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true' TERM
  trap 'interrupted=1; [ -z "$child" ] || kill -INT "$child" 2>/dev/null || true' INT
  set -m
  "$PYTHON" -c "$TORCHRUN" "$@" &
  child=$!
  set +m
  [ "$interrupted" = 0 ] || kill -TERM "$child" 2>/dev/null || true
  while :; do
    status=0
    wait "$child" || status=$?
    kill -0 "$child" 2>/dev/null || break   # {waited}
  done
  trap - TERM INT
  if [ "$interrupted" = 1 ] && [ "$status" != 0 ]; then
    echo {interrupted} >&2
    exit {EXIT_PREEMPTED}
  fi
  exit "$status"
}}
"""


#: Width of launch.sh's section rules ("# ---- NCCL: … ----…").
_RULE_WIDTH = 97


def _rule(title: str) -> str:
    """A section rule of launch.sh: ``# ---- title ----…`` to the width of the others, as a terminal
    shows it (a Chinese character takes two columns)."""
    line = f"# ---- {title} "
    columns = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    return line + "-" * max(3, _RULE_WIDTH - columns) + "\n"


def _beside(code: str, note: str) -> str:
    """``code`` with ``note`` as a comment beside it; the note's further lines under its first."""
    first, *rest = note.splitlines()
    return f"{code}# {first}\n" + "".join(f"#{' ' * (len(code) - 1)}# {line}\n" for line in rest)


def _nic_note(spec: LaunchSpec) -> str:
    """What NCCL_SOCKET_IFNAME is for, beside it in launch.sh: the NIC's usual name on AWS's Nitro
    instances (ens5) only on an AWS plan; elsewhere the command that lists the machine's NICs."""
    if spec.provider == "aws":
        return _(
            "the NIC between nodes when the default is wrong (ens5 on AWS\n"
            "Nitro; `ip -br addr` lists them); never the docker0/lo bridge"
        )
    return _(
        "the NIC between nodes when the default is wrong (`ip -br addr`\n"
        "lists them); never the docker0/lo bridge"
    )


def _nccl_switches(spec: LaunchSpec) -> str:
    """launch.sh's commented-out NCCL switches, each with what it is for (and the instance's topology
    file where NCCL needs one: :mod:`gpuplan.deploy.nccl_topology`)."""
    return (
        _rule(_("NCCL: if multi-GPU training hangs or is slow"))
        + _beside(
            "# export NCCL_DEBUG=INFO            ",
            _("log the transport NCCL picks (NVLink, IB/EFA, sockets) and why"),
        )
        + _beside("# export NCCL_SOCKET_IFNAME=eth0    ", _nic_note(spec))
        + _beside(
            "# export NCCL_IB_DISABLE=1          ",
            _("only when InfiniBand/RoCE is absent or broken: falls back to TCP"),
        )
        + _beside(
            "# nvidia-smi topo -p2p r            ",
            _(
                "one PCIe machine: OK = GPUs talk peer to peer; GNS (GeForce\n"
                "cards) or NS = through host memory, slower (as NCCL_P2P_DISABLE=1)"
            ),
        )
        + topology_launch_lines(spec)
        + commented(
            _(
                "Firewall: nodes must reach each other on MASTER_PORT (rendezvous) and on NCCL's "
                "ephemeral TCP\nports: put them in one security group / VPC subnet that allows all "
                "traffic between its members."
            )
        )
    )


#: A launch resumes from the newest checkpoint in its folder: what a new run needs, in the READMEs of
#: the targets whose checkpoint folder the user names (torchrun, docker). SkyPilot and Kubernetes
#: name a bucket or a PVC of each deploy's own (gpuplan.deploy.runs).
NEW_RUN = N_(
    "A new run needs a checkpoint folder of its own: given a finished run's, train.py says so and "
    "trains nothing."
)

#: The line launch.sh refuses a multi-node start with when no checkpoint folder is named. launch.sh's
#: messages are in the deploy's language, as its comments are (train.py's stay English: they are
#: the job's log).
_NO_SHARED_CKPT = N_(
    "launch.sh: set CKPT_DIR (or --ckpt-dir) to storage every node sees (NFS, a bucket mount), the same "
    "path on every node; CKPT_DIR=./checkpoints keeps a folder on each node, and a replaced node takes "
    "its checkpoints with it"
)


def _refuse(message: str) -> str:
    """launch.sh's lines that print ``message`` (translated, single-quoted) to stderr and exit 2."""
    return f"  echo {shlex.quote(message)} >&2\n  exit 2\n"


def launch_sh(spec: LaunchSpec, options: GenerateOptions | None = None) -> str:
    """launch.sh: torchrun for one node (--standalone) or many (static rendezvous at node 0). Its
    comments are in the user's language, its commands the same in every language."""
    what = _(
        "Launch {name} with torchrun: {per_node} GPU(s) per node x {nodes} node(s).\n"
        "Extra arguments go to train.py (e.g. --steps 100, --ckpt-dir /mnt/ckpt). "
        "Written by `gpuplan deploy`."
    ).format(name=spec.name, per_node=spec.gpus_per_node, nodes=spec.nodes)
    samples = spec.train_samples
    if options is not None and stand_in_check(spec, options, samples):
        what += "\n" + _(
            "train.py trains on synthetic data: by default a short check of {steps} steps, not the job's\n"
            "full run; --steps {full} trains the full run."
        ).format(steps=STAND_IN_CHECK_STEPS, full=full_steps(spec, samples))
    signals = _("signals: SIGTERM (spot reclaim, `kubectl delete`, `docker stop`) -> exit {status}")
    signals = f"# ---- {signals.format(status=EXIT_PREEMPTED)} ----\n"
    if spec.nodes == 1:
        durable = _("spot: durable storage (bucket mount, NFS, PVC)")
        ckpt = f'export CKPT_DIR="${{CKPT_DIR:-checkpoints}}"   # {durable}\n'
    else:
        ckpt = ""  # set below, after the node's settings are checked
    fewer = _(
        "NPROC_PER_NODE=N ./launch.sh runs on N GPUs per node. A checkpoint written on another GPU count\n"
        "resumes with the same global batch where the GPUs in all divide it into whole accumulation steps;\n"
        "train.py refuses other counts with one line that names the counts that work."
    )
    head = f"""#!/usr/bin/env bash
{commented(what)}set -euo pipefail
cd "$(dirname "$0")"

{given_rdma_launch_lines(spec)}{_nccl_switches(spec)}
{commented(fewer)}NPROC_PER_NODE="${{NPROC_PER_NODE:-{spec.gpus_per_node}}}"
PYTHON="${{PYTHON:-python3}}"
{ckpt}
{signals}{_run_torchrun()}"""
    if spec.nodes == 1:
        return (
            head
            + "\n"
            + commented(_("One node: --standalone runs its own rendezvous on a free local port."))
            + 'run_torchrun --standalone --nproc-per-node "$NPROC_PER_NODE" train.py "$@"\n'
        )
    several = _(
        "{nodes} nodes: run this script on every node with the same MASTER_ADDR (node 0's private IP)\n"
        "and NODE_RANK 0..{last}. Static rendezvous: the node with NODE_RANK=0 hosts it at\n"
        "MASTER_ADDR:MASTER_PORT and its ranks are 0..NPROC_PER_NODE-1, so rank 0, which writes the\n"
        "checkpoints, is always on node 0. (With --rdzv-backend c10d torchrun ignores --node-rank and\n"
        "rank 0 goes to whichever node it sorts first: torchrun's documentation of --node-rank, \"only\n"
        'used for static rendezvous", https://docs.pytorch.org/docs/stable/elastic/run.html.)'
    ).format(nodes=spec.nodes, last=spec.nodes - 1)
    shared = _(
        "Checkpoints: CKPT_DIR must be storage every node sees (NFS, a bucket mount), the same path on\n"
        "every node. At start every rank looks in its CKPT_DIR and all load the newest checkpoint any\n"
        "of them sees; a folder on each node is lost with the node. Without CKPT_DIR or --ckpt-dir this\n"
        "script refuses to start; set CKPT_DIR=./checkpoints to accept a folder on each node."
    )
    bad_rank = double_quoted(
        _("launch.sh: NODE_RANK must be a number from 0 to {last}, not '{rank}'"),
        last="$((NNODES - 1))",
        rank="$NODE_RANK",
    )
    no_master = _refuse(_("launch.sh: set MASTER_ADDR to the private IP address of node 0"))
    no_rank = _refuse(_("launch.sh: set NODE_RANK (0 on the node at MASTER_ADDR, then 1, 2, ...)"))
    no_ckpt = _refuse(_(_NO_SHARED_CKPT))
    return (
        head
        + "\n"
        + commented(several)
        + f"""NNODES="${{NNODES:-{spec.nodes}}}"
if [ -z "${{MASTER_ADDR:-}}" ]; then
{no_master}fi
if [ -z "${{NODE_RANK:-}}" ]; then
{no_rank}fi
if ! [[ "$NODE_RANK" =~ ^[0-9]+$ ]] || [ "$NODE_RANK" -ge "$NNODES" ]; then
  echo "{bad_rank}" >&2
  exit 2
fi
MASTER_PORT="${{MASTER_PORT:-{MASTER_PORT}}}"

{commented(shared)}ckpt_named=0
for arg in "$@"; do
  case "$arg" in --ckpt-dir|--ckpt-dir=*) ckpt_named=1 ;; esac
done
if [ -z "${{CKPT_DIR:-}}" ] && [ "$ckpt_named" = 0 ]; then
{no_ckpt}fi
export CKPT_DIR="${{CKPT_DIR:-checkpoints}}"

run_torchrun \\
  --nnodes "$NNODES" --nproc-per-node "$NPROC_PER_NODE" --node-rank "$NODE_RANK" \\
  --rdzv-backend static --master-addr "$MASTER_ADDR" --master-port "$MASTER_PORT" \\
  train.py "$@"
"""
    )


def _template(name: str) -> str:
    return resources.files("gpuplan.deploy.templates").joinpath(name).read_text(encoding="utf-8")


def entry_point_files(spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
    """The job's code, shared by every target: train.py (it also defines the model) and launch.sh
    for training; train.py and serve.py for a service; train.py and batch.py for batch inference."""
    if engine_launch(spec) is not None:
        return []  # the engine's image holds all it runs
    if batch_engine_launch(spec) is not None:
        # vLLM's image runs its server; this sends it the inputs, writes chunks and resumes
        return [GeneratedFile(path=VLLM_RUNNER, content=_template("vllm_batch_entry.py"), executable=True)]
    code = [GeneratedFile(path="train.py", content=render_train_py(spec, options), executable=True)]
    if (model := preset_model_py(spec)) is not None:
        # the preset's own code beside train.py, which imports it: every target ships both
        code.append(GeneratedFile(path=PRESET_MODULE, content=model))
    if spec.batch_inference:
        return [*code, GeneratedFile(path="batch.py", content=_template("batch_entry.py"), executable=True)]
    if spec.task == "infer":
        return [*code, GeneratedFile(path="serve.py", content=_template("serve_entry.py"), executable=True)]
    return [*code, GeneratedFile(path="launch.sh", content=launch_sh(spec, options), executable=True)]


#: The optimizers train.py builds from PyTorch itself (Adafactor: PyTorch 2.5 and later).
_TORCH_OPTIMIZERS = ("sgd", "adam", "adamw", "adamw-fused", "adafactor")
#: bitsandbytes' optimizers, which train.py steps where bitsandbytes is installed on a CUDA machine.
_BITSANDBYTES_OPTIMIZERS = ("adamw-8bit", "paged-adamw-8bit")
#: Precisions with no plain-PyTorch form, and the autocast train.py runs for each instead.
_PRECISION_FALLBACK = {"fp8": "bf16", "bf16-master": "bf16", "fp16-master": "fp16"}


def training_model_note(
    spec: LaunchSpec, target: str, options: GenerateOptions | None = None, install: str | None = None
) -> str:
    """:func:`training_model_points` as a README's list of short headed points."""
    return bullets(training_model_points(spec, target, options, install))


def training_model_points(
    spec: LaunchSpec,
    target: str,
    options: GenerateOptions | None = None,
    install: str | None = None,
    dataset: str | None = None,
) -> list[str]:
    """What train.py trains, for how many steps, and where it runs other than the plan priced (said,
    never silent): every target that runs train.py says it (torchrun, docker, k8s, skypilot). One
    headed point each, what train.py trains first. ``target``: the files' (whether they give every
    node one checkpoint folder, ``resume_memory.SHARED_CHECKPOINT_TARGETS``); ``options``: the
    deploy's (its --steps); ``install``: how the launch folder installs the user's package it copied
    (``user_package.install_words``); None: nothing is copied, and the user makes it importable on
    the machine; ``dataset``: the target's own words on where the dataset is (k8s: the pod's volume
    for it), else :func:`dataset_copy_note`'s copy onto each node's disk."""
    notes = [_model_words(spec, install), headed(_("No GPU"), no_gpu_note("train.py"))]
    if resume := resume_memory_warning(spec, target):
        # said where the files are read too, not only on deploy's stderr: a resume is days away
        notes.append(_("**Warning:** {line}.").format(line=resume))
    if options is not None and (steps := steps_note(spec, options)):
        notes.append(headed(_("Steps"), steps))
    if workers := planned_workers(spec).readme(spec):
        notes.append(headed(_("Data loader"), workers))
    if weights := base_weights_note(spec):
        notes.append(headed(_("Base weights"), weights))
    if data := dataset or (skypilot_dataset_note(spec) if target == "skypilot" else dataset_copy_note(spec)):
        notes.append(headed(_("Dataset"), data))
    if spec.gradient_checkpointing and spec.model_entry_point:
        notes.append(
            headed(
                _("Activation checkpointing"),
                _(
                    "The plan's memory assumes activation checkpointing: train.py checkpoints your model "
                    "as gpuplan's estimate did, with transformers' own per-layer checkpointing where the "
                    "model has it, else each element of its largest nn.ModuleList (PyTorch's checkpoint "
                    "wrapper, before DDP or FSDP wrap the model), and says at the start what it wrapped. "
                    "A model with no repeated blocks trains without checkpointing, on more GPU memory "
                    "than planned, and the run warns."
                ),
            )
        )
    if spec.optimizer in _BITSANDBYTES_OPTIMIZERS:
        optimizer = _(
            "The plan's optimizer, {optimizer}, is bitsandbytes': train.py steps it where bitsandbytes "
            "is installed on a CUDA machine (`pip install bitsandbytes`), else torch.optim.AdamW with a "
            "warning, whose state takes 4× the memory the plan priced."
        ).format(optimizer=spec.optimizer)
    elif spec.optimizer == "adafactor" and spec.parallelism not in ("ddp", "zero1"):
        optimizer = _(
            "PyTorch's Adafactor does not step {parallelism}'s sharded parameters: train.py steps "
            "torch.optim.AdamW instead, with a warning, whose state (8 bytes a parameter) is far more "
            "than the factored one the plan priced."
        ).format(parallelism=spec.parallelism)
    elif spec.optimizer not in _TORCH_OPTIMIZERS:
        optimizer = _(
            "The plan's optimizer, {optimizer}, is not in PyTorch: train.py steps torch.optim.AdamW "
            "instead; put yours in `build_optimizer()` for the memory the plan assumed."
        ).format(optimizer=spec.optimizer)
    else:
        optimizer = ""
    notes.append(headed(_("Optimizer"), optimizer))
    if (fallback := _PRECISION_FALLBACK.get(spec.precision)) is not None:
        notes.append(
            headed(
                _("Precision"),
                _(
                    "The plan's precision, {precision}, has no plain-PyTorch form: train.py runs {fallback} "
                    "autocast instead (Transformer Engine, torchao or Megatron-LM run it as priced)."
                ).format(precision=spec.precision, fallback=fallback),
            )
        )
    if spec.tensor_parallel * spec.pipeline_parallel > 1:
        notes.append(
            headed(
                _("Model split"),
                _(
                    "The plan splits the model (tensor_parallel {tp}, pipeline_parallel {pp}); train.py runs "
                    "data parallelism only, over every GPU, so neither its step time nor its memory is the "
                    "plan's. Launch the split with a framework that does it (Megatron-LM, torchtitan, "
                    "DeepSpeed)."
                ).format(tp=spec.tensor_parallel, pp=spec.pipeline_parallel),
            )
        )
    if spec.compile:
        notes.append(
            headed(
                "torch.compile",
                _(
                    "train.py compiles the model with torch.compile on CUDA (a dry run with --device cpu "
                    "stays eager)."
                ),
            )
        )
    return [n for n in notes if n]


def base_weights_note(spec: LaunchSpec) -> str:
    """Where a fine-tune of a Hub model gets the weights it starts from (a README sentence; "" for
    any other job): train.py builds no model of the Hub's, so the user loads them in build_model().
    In mainland China, where huggingface.co is often unreachable (as :func:`~gpuplan.deploy.engine.
    hub_note` says for a service), the ways around it: ``HF_ENDPOINT`` points huggingface_hub at a
    mirror (huggingface_hub "Environment variables", huggingface.co/docs/huggingface_hub/package_reference/
    environment_variables), and ModelScope's command line downloads a model's files to a folder
    (ModelScope "模型下载", modelscope.cn/docs/models/download: ``modelscope download --model ID
    --local_dir DIR``)."""
    model = spec.hf_model_id
    if spec.task != "finetune" or model is None:
        return ""
    base = spec.hf_base_model_id
    said = (
        _(
            "This fine-tune starts from the weights of `{model}` on the Hugging Face Hub "
            "(https://huggingface.co/{model}; its pretrained checkpoint is `{base}`): load them in "
            "`build_model()`, e.g. with transformers' `from_pretrained()`, and set HF_TOKEN where the "
            "model is gated."
        )
        if base
        else _(
            "This fine-tune starts from the weights of `{model}` on the Hugging Face Hub "
            "(https://huggingface.co/{model}): load them in `build_model()`, e.g. with transformers' "
            "`from_pretrained()`, and set HF_TOKEN where the model is gated."
        )
    ).format(model=model, base=base)
    if in_mainland_china(spec.provider, spec.region):
        said = sentences(
            said,
            _(
                "huggingface.co is often unreachable from mainland China ({provider} {region}): put the "
                "weights on a volume the job mounts and load them from that path, set HF_ENDPOINT to a "
                "mirror you trust, or download them from ModelScope (`modelscope download --model ID "
                "--local_dir DIR`, with ModelScope's id of the model)."
            ).format(provider=spec.provider, region=spec.region),
        )
    elif maybe_mainland_china(spec.provider, spec.region):
        said = sentences(
            said,
            _(
                "If this runs in a mainland China region of {provider} (no region is named: pick "
                "one before applying), huggingface.co is often unreachable from there: put the weights on "
                "a volume the job mounts and load them from that path, set HF_ENDPOINT to a mirror you "
                "trust, or download them from ModelScope (`modelscope download --model ID --local_dir "
                "DIR`, with ModelScope's id of the model)."
            ).format(provider=spec.provider),
        )
    return said


def _model_words(spec: LaunchSpec, install: str | None) -> str:
    if spec.model_entry_point:
        if install is None:
            install = _(
                "Make the package importable on the machine, its requirements with it (where your project "
                "has a requirements.txt: `{pin}`, then `pip install -r requirements.txt -c {constraints}`, "
                "a pip constraints file that keeps the PyTorch installed, or fails with pip's resolver "
                "error, instead of letting a requirement replace it; then {install})."
            ).format(install=install_hint(spec), pin=pin_torch("."), constraints=TORCH_CONSTRAINTS)
            install = sentences(install, *_imports_to_install(spec))
        return _(
            "**train.py trains your model** from `{entry}` through gpuplan's entry-point "
            "protocol (`build()` returns `(model, make_inputs[, loss_fn])`), on the micro-batches your "
            "`make_inputs()` makes and with your `loss_fn`. {install} To train on real data, replace "
            "`build_dataset()` in train.py."
        ).format(entry=spec.model_entry_point, install=install)
    if written_preset(spec):
        return _(
            "**train.py trains the workload's {source}**, built from preset_model.py beside it: the "
            "preset's own code as gpuplan traced it (PyTorch only), randomly initialised, on seeded "
            "synthetic batches of the workload's shape. Put your data in `build_dataset()`; a fine-tune "
            "loads its weights in `build_model()`. `--width` and `--depth` shrink the model for a quick "
            "check on a small machine."
        ).format(source=spec.model_source)
    return _(
        "**train.py trains a stand-in model, not the workload's {source}.** train.py cannot rebuild "
        "that without gpuplan, so it trains a small stand-in of the same kind on seeded synthetic data: "
        "enough to prove the GPUs, the scaling and the checkpoint/resume path. Put your model in "
        "`build_model()`, your data in `build_dataset()` and your objective in `compute_loss()` "
        "(section YOUR MODEL AND DATA)."
    ).format(source=spec.model_source)


def _imports_to_install(spec: LaunchSpec) -> list[str]:
    """Where the launch copies no code (torchrun): the third-party packages the user's code imports,
    to install on every machine with the package (:func:`gpuplan.deploy.user_package.package_notes`),
    as deploy's output says them; none where the project folder is not on this machine or does not
    hold the package (deploy says so)."""
    try:
        package = user_package(spec)
    except DeployError:
        return []
    return package_notes(package, copied=False) if package is not None else []


def serving_note(spec: LaunchSpec) -> str:
    """What the service runs, said plainly (a README paragraph): the serving engine, or serve.py
    and why."""
    launch = engine_launch(spec)
    unpriced = unpriced_share(spec)
    if launch is not None:
        return engine_note(launch, unpriced)
    if spec.model_entry_point:
        what = _("your model from `{entry}` (build_model() in train.py)").format(entry=spec.model_entry_point)
    elif written_preset(spec):
        what = _(
            "the workload's {source} as train.py builds it from preset_model.py (the preset's own code, "
            "as gpuplan traced it), randomly initialised: load its weights in build_model() or put them "
            "as a checkpoint in `$CKPT_DIR`"
        ).format(source=spec.model_source)
    else:
        what = _(
            "the stand-in model from train.py, randomly initialised: the workload's model is "
            "{source}, which train.py cannot rebuild without gpuplan. Put yours in build_model()"
        ).format(source=spec.model_source)
    said = _(
        "serve.py serves {what}. It loads the newest checkpoint in `$CKPT_DIR` when there is one. It is a "
        "minimal standard-library HTTP server (POST /v1/predict, GET /healthz): for production traffic put "
        "the model behind a batching server (TorchServe, Triton, vLLM)."
    ).format(what=what)
    return sentences(said, no_gpu_note("serve.py"), serve_py_reason(spec), unpriced)


def loader_note(spec: LaunchSpec) -> str:
    """The README paragraph on a run the data loader slows (workers per GPU against the machine's CPU
    cores), beside the one on NCCL: a run that is slow across GPUs may be waiting for its input, not
    for its collectives. What ``num_workers`` means is PyTorch's: "how many subprocesses to use for
    data loading. ``0`` means that the data will be loaded in the main process" (the DataLoader's
    docstring, ``torch.utils.data.DataLoader``, https://docs.pytorch.org/docs/stable/data.html,
    PyTorch 2.13, read 2026-12-06)."""
    workers = planned_workers(spec)
    who = assumed_by(spec)
    if workers.source == "unpriced":
        assumed = _("{n} per GPU by default; {who} counts none for a job that decodes no images")
    elif workers.source == "typical":
        assumed = _("{n} per GPU by default, a typical instance's vCPUs per GPU: give your machine's")
    else:
        assumed = _("{n} per GPU by default, what {who} assumes")
    assumed = assumed.format(n=workers.count, who=who)
    return _(
        "If the GPUs wait for their data rather than for each other: each GPU's process starts "
        "`--num-workers` DataLoader workers ({assumed}), and all the GPUs' workers on a machine share "
        "its CPU cores (`nproc`). In PyTorch's words, `num_workers` is \"how many subprocesses to use "
        'for data loading", and 0 loads the data "in the main process", between the GPU\'s steps '
        "(https://docs.pytorch.org/docs/stable/data.html). The signs of an input-bound run: GPU "
        "utilisation that dips between steps (`nvidia-smi dmon -s u`), samples/s in train.py's log "
        "below what {who} assumed, and a training process that `py-spy dump --pid PID` shows "
        "waiting in the DataLoader's `__next__`. More workers help while workers × GPUs stays within "
        "`nproc`; beyond that, decode on the GPU (NVIDIA DALI) or store the data decoded."
    ).format(assumed=assumed, who=who)


def readme(spec: LaunchSpec, options: GenerateOptions | None = None) -> str:
    """README.md in the user's language; the commands in it are the same in every language (only
    their comments are prose)."""
    arguments = _("arguments after launch.sh go to train.py (see `python train.py --help`)")
    if spec.nodes == 1:
        run = (
            "./launch.sh                 # " + _("all GPUs of this machine") + "\n"
            "./launch.sh --steps 100     # " + arguments
        )
    else:
        env = "CKPT_DIR=/mnt/shared/ckpt MASTER_ADDR=10.0.0.1"
        lines = [
            "# " + _("on node 0 (its private IP is MASTER_ADDR):"),
            f"{env} NODE_RANK=0 ./launch.sh",
        ]
        for k in range(1, min(spec.nodes, 3)):
            lines += ["# " + _("on node {k}:").format(k=k), f"{env} NODE_RANK={k} ./launch.sh"]
        if spec.nodes > 3:
            lines.append(
                "# " + _("… and so on, to NODE_RANK={last} on the last node").format(last=spec.nodes - 1)
            )
        lines += [
            "# " + _("arguments after launch.sh go to train.py, the same on every node:"),
            f"{env} NODE_RANK=0 ./launch.sh --steps 100",
        ]
        run = "\n".join(lines)
    if spec.nodes == 1:
        again = _(
            "If the run is interrupted, run the same command again: it resumes from the newest checkpoint."
        )
    else:
        again = _(
            "If the run is interrupted, run the same commands again on every node: it resumes from the "
            "newest checkpoint."
        )
    spot = (
        _(
            "This plan uses **spot** capacity. When the machine is reclaimed, train.py gets SIGTERM, saves a "
            "checkpoint at the next step and exits with status 143; run the same command again (on a new "
            "machine that sees the same CKPT_DIR) and it resumes. Keep CKPT_DIR on durable storage."
        )
        if spec.spot
        else again
    )
    spot = sentences(spot, spot_notice_note(spec))
    title = _("{name}: torchrun launch").format(name=spec.name)
    gpus = _(
        "{total} x {gpu} ({per_node} per node, {nodes} node(s)), parallelism\n"
        "`{parallelism}`. Needs Python 3.10+ and PyTorch 2.4+ with CUDA on the machine "
        "(gpuplan is not needed)."
    ).format(
        total=spec.total_gpus,
        gpu=spec.gpu or "GPU",
        per_node=spec.gpus_per_node,
        nodes=spec.nodes,
        parallelism=spec.parallelism,
    )
    # launch.sh's own rule: one node defaults CKPT_DIR to ./checkpoints; several refuse to start
    # without it (a folder on each node is lost with the node), as the paragraph below explains.
    checkpoints = (
        _(
            "Checkpoints go to `$CKPT_DIR` (default `./checkpoints`) every {minutes} min\n"
            "(`--ckpt-every-min`, `--ckpt-every-steps`). {spot}"
        )
        if spec.nodes == 1
        else _(
            "Checkpoints go to `$CKPT_DIR`, which launch.sh needs on several nodes (no default: see "
            "below), every {minutes} min\n(`--ckpt-every-min`, `--ckpt-every-steps`). {spot}"
        )
    ).format(minutes=f"{checkpoint_interval_min(spec):.1f}", spot=spot)
    checkpoints = sentences(checkpoints, _(NEW_RUN))
    checkpoints += "\n\n" + checkpoint_disk_note(spec)
    checkpoints += "\n\n" + gpu_count_note(spec)
    if spec.nodes > 1:
        checkpoints += "\n\n" + _(
            "**Several nodes: CKPT_DIR must be storage every node sees** (an NFS share, a bucket mount), "
            "the same path on every node. Rank 0 writes the checkpoints, and it is on the node with "
            "NODE_RANK=0 (launch.sh uses torchrun's static rendezvous, where NODE_RANK fixes the ranks). At "
            "start every rank looks in its own CKPT_DIR, and all of them load the newest checkpoint any of "
            "them sees (train.py warns when that is not on node 0). A local folder on each node is lost "
            "with the node: after a spot replacement the run would go back to an older checkpoint, or to "
            "step 0. launch.sh refuses to start without CKPT_DIR (or --ckpt-dir); to accept a folder on "
            "each node anyway, set `CKPT_DIR=./checkpoints`."
        )
    nccl = _(
        "If it hangs or is slow across GPUs: uncomment `NCCL_DEBUG=INFO` in launch.sh and read which "
        "transport\n"
        "NCCL chose; check the firewall between nodes (MASTER_PORT and NCCL's TCP ports). On one "
        "PCIe machine,\n"
        "`nvidia-smi topo -p2p r` shows whether the GPUs talk peer to peer (OK; GeForce cards do not: "
        "NCCL then\n"
        "goes through host memory, and `gpuplan estimate` counts it so)."
    )
    if topology := topology_readme_note(spec):
        nccl += "\n\n" + topology
    return f"""# {title}

{gpus}

```bash
{run}
```

{checkpoints}

{training_model_note(spec, "torchrun", options)}

{nccl}

{loader_note(spec)}
{fabric_note(spec, "torchrun")}"""


class TorchrunGenerator:
    """launch.sh + train.py for torchrun on machines the user already has (or rents by hand)."""

    name = "torchrun"
    #: The job runs on machines the user already has: the model's package is theirs to install there.
    copies_user_package = False
    summary = "launch.sh and train.py for torchrun (DDP/FSDP, checkpoint-and-resume on SIGTERM)"

    def generate(self, spec: LaunchSpec, options: GenerateOptions) -> list[GeneratedFile]:
        if spec.task == "infer":
            raise DeployError.worded(
                N_("torchrun launches training, not a service: {instead}"),
                instead=instead(spec, "torchrun", options),
            )
        return [
            *entry_point_files(spec, options),
            GeneratedFile(path="README.md", content=readme(spec, options)),
        ]
