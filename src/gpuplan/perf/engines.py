"""The serving engines' scheduling defaults, one table: what a replica runs with when the workload
names its engine (``serving.engine: vllm==0.8.5``, ``sglang==0.4.6``) and sets nothing else.

Each row was read from the engine's own source at the version it names (the wheels on PyPI,
read 2026-12-03, except the vLLM 0.9 row):

- **vLLM before V1** (read at 0.6.6.post1, ``vllm/engine/arg_utils.py`` ``EngineArgs`` and
  ``vllm/config.py`` ``SchedulerConfig.__post_init__``): 256 sequences; chunked prefill off
  unless the model's context is longer than 32K; without it, ``max_num_batched_tokens =
  max(max_model_len, 2048)``, so whole prompts run in iterations of their own (the model's context
  length is not in its trace: its floor 2048 is taken, a prompt longer than the budget still runs
  alone); prefix caching off (``bool(envs.VLLM_USE_V1)``); ``gpu_memory_utilization`` 0.9.
- **vLLM 0.8** (V1 by default; read at 0.8.5, ``EngineArgs._set_default_args_v1``): "V1 always
  uses chunked prefills", prefix caching on; for the OpenAI API server 8192 batched tokens and
  1024 sequences on a device of at least 70 GiB, else 2048 and 256.
- **vLLM 0.9 on** (``EngineArgs.get_batch_defaults``, v0.9–v0.11 read 2026-12-01, v0.14.0 read
  2026-12-06 from its wheel on PyPI): the same, except the A100 keeps 2048 and 256 (vLLM PR #17885
  found the larger budget slower on it). At 0.14.0 ``get_batch_defaults`` still gives the OpenAI
  API server 8192 and 1024 where ``device_memory >= 70 * GiB_bytes and "a100" not in
  device_name``, else 2048 and 256; chunked prefill and prefix caching default to the model's
  support (``_set_default_chunked_prefill_and_prefix_caching_args``: on for a decoder that
  generates); ``CacheConfig.gpu_memory_utilization`` 0.9. 0.12 and 0.13, between two reads of the
  same defaults, were not read and are taken as the row.
- **SGLang 0.4** (read at 0.4.6, ``python/sglang/srt/server_args.py`` ``ServerArgs`` and
  ``model_executor/model_runner.py``): ``chunked_prefill_size`` 2048 on a GPU of less than
  25,000 MiB, else 8192; ``max_prefill_tokens`` 16384; ``schedule_policy`` fcfs; the radix cache
  (prefix caching) on; ``mem_fraction_static`` 0.88, 0.87, 0.85, 0.81, 0.79 at 1, 2, 4, 8, 16
  GPUs; ``max_running_requests`` from the KV pool, ``min(max(pool / context × 512, 2048), 4096)``
  (at least 2048, far above the sequences a KV cache holds here); CUDA graphs up to a batch of 160
  (8 or 80 below 25,000 MiB).
- **SGLang 0.5** (read at 0.5.2, same files): ``chunked_prefill_size`` 2048 below 35 GiB, 8192
  below 160 GiB, else 16384; ``mem_fraction_static`` = (memory − reserved) / memory, reserved
  (2.8 + GPUs/10) GiB below 35 GiB, (9.5 + GPUs/2) below 90, (12 + GPUs/2) below 160, else 32 GiB
  (memory as nvidia-smi reports it); the rest as 0.4.

How the simulation runs them: vLLM V1 packs decodes and prompt chunks into one token budget
(``chunked_prefill``). vLLM V0 and SGLang run prompts in iterations of their own, the decodes
waiting (SGLang's ``get_next_batch_to_run`` runs a new prefill batch before the running decode
batch; ``enable_mixed_chunk`` is off): ``chunked_prefill=False`` with SGLang's prefill budget
(``max_prefill_tokens``). SGLang also cuts a prompt longer than ``chunked_prefill_size`` over
several prefill iterations; here it runs as one (the same prefill work, the decodes waiting
through it either way). The estimate and the planner size a replica's memory and KV cache from the
engine's share itself (:mod:`gpuplan.perf.engine_memory`: vLLM's share holds its activations,
SGLang's does not, ``activations_in_share``), and so does the serving simulation's replica.

A version between two rows takes the row before it, one past the last read the last row, said so in
the settings' source. None stated: the version ``gpuplan deploy`` pins (:data:`NEWEST_KNOWN`), so
that the figures shown are those of the engine deployed, said so. No engine named: vLLM's, said so.

The table sits below the planner so that ``estimate`` and ``plan`` run a replica as the same engine
does: no more sequences than its ``max_num_seqs`` (``deploy`` leaves it at the default), prompts
joining the decodes or run apart; the serving simulation reads it through
:mod:`gpuplan.simulate.engines`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpuplan.errors import InputError
from gpuplan.i18n.messages import N_, _

if TYPE_CHECKING:
    from gpuplan.hardware import GPU

__all__ = ["ESTIMATOR_MEMORY_FRACTION", "NEWEST_KNOWN", "EngineSettings", "engine_defaults"]

#: The release of each engine pinned where the workload names no version (``gpuplan deploy`` runs
#: its image) and so the one the estimate, the planner and the serving simulation take: vLLM 0.14.0
#: (asynchronous scheduling, ``gpuplan.perf.engine_cpu``; its batch defaults are the 0.9 row's, read
#: in its wheel); SGLang 0.5.2, the release its 0.5 row was read at (the overlap scheduler of 0.4 on,
#: as ``engine_cpu`` takes it), whose image ``lmsysorg/sglang:v0.5.2`` others build on (inclusionAI
#: AReaL, ``Dockerfile`` at commit daa0dee1, ``FROM lmsysorg/sglang:v0.5.2 as base``; read
#: 2026-12-06).
NEWEST_KNOWN = {"vllm": "0.14.0", "sglang": "0.5.2"}


@dataclass(frozen=True, kw_only=True)
class EngineSettings:
    """The serving engine's scheduling knobs (vLLM's names; each engine's defaults are
    :func:`engine_defaults`). The serving simulation runs all of them; the estimate and the
    planner read ``max_num_seqs`` and ``chunked_prefill`` (``perf.inference.decode_estimate``)."""

    max_num_seqs: int = 256
    """Sequences one iteration may hold (``--max-num-seqs``; SGLang ``--max-running-requests``)."""
    max_batched_tokens: int = 2048
    """Tokens one iteration may compute, decode and prefill together (``--max-num-batched-tokens``);
    without chunked prefill, the prompt tokens of a prefill iteration (SGLang
    ``--max-prefill-tokens``)."""
    chunked_prefill: bool = True
    """Decodes and prompt chunks share each iteration (vLLM V1); off: prompts run whole in
    iterations of their own and the decodes wait (vLLM V0, SGLang)."""
    prefix_caching: bool = True
    """Freed KV blocks keep their contents until reused (``--enable-prefix-caching``; vLLM V1's
    default, SGLang's radix cache): a preempted request finds the full blocks of its prefix still
    in the cache."""
    block_tokens: int = 16
    """KV cache is handed out in blocks of this many tokens (``--block-size``; SGLang ``--page-size``)."""
    memory_fraction: float = 0.9
    """The engine's share of GPU memory (``--gpu-memory-utilization``; SGLang
    ``--mem-fraction-static``), which sizes its KV cache."""
    activations_in_share: bool = True
    """Whether the engine's share holds its activations (vLLM measures them inside it, its KV cache
    takes what is left) or only the weights and the KV pool, the activations and CUDA graphs living
    in the rest of the GPU (SGLang's ``mem_fraction_static``); see :mod:`gpuplan.perf.engine_memory`."""
    source: str = ""
    """Where these settings come from (shown in the report)."""

    def __post_init__(self) -> None:
        if self.max_num_seqs < 1 or self.max_batched_tokens < 1 or self.block_tokens < 1:
            raise InputError.worded(
                N_("engine settings: max_num_seqs, max_batched_tokens and block_tokens must be at least 1")
            )


#: vLLM's default share of GPU memory (``--gpu-memory-utilization``): the share the estimate and the
#: planner size a vLLM replica's KV cache in (its rows' ``memory_fraction``), and deploy starts it at.
ESTIMATOR_MEMORY_FRACTION = 0.9

#: (the words, the engine and version, where in its source): shown in the user's language, the
#: engine and the places in its source as they are.
_DEFAULTS = N_("{engine} defaults ({where})")
_SERVER_DEFAULTS = N_("{engine} API-server defaults ({where})")
_VLLM_V0 = (_DEFAULTS, "vLLM 0.6.6.post1", "vllm/engine/arg_utils.py, vllm/config.py SchedulerConfig")
_VLLM_08 = (_SERVER_DEFAULTS, "vLLM 0.8.5", "vllm/engine/arg_utils.py _set_default_args_v1")
_VLLM_09 = (_SERVER_DEFAULTS, "vLLM", "vllm/engine/arg_utils.py get_batch_defaults, v0.9-v0.11, v0.14.0")
_SGLANG_04 = (_DEFAULTS, "SGLang 0.4.6", "python/sglang/srt/server_args.py ServerArgs, model_runner.py")
_SGLANG_05 = (_DEFAULTS, "SGLang 0.5.2", "python/sglang/srt/server_args.py ServerArgs, model_runner.py")
_Source = tuple[str, str, str]
#: (engine, first version the row holds for, the versions read (first, last), its source)
_ROWS: tuple[tuple[str, tuple[int, int], tuple[int, int], tuple[int, int], _Source], ...] = (
    ("vllm", (0, 0), (0, 6), (0, 6), _VLLM_V0),
    ("vllm", (0, 8), (0, 8), (0, 8), _VLLM_08),
    ("vllm", (0, 9), (0, 9), (0, 14), _VLLM_09),
    ("sglang", (0, 0), (0, 4), (0, 4), _SGLANG_04),
    ("sglang", (0, 5), (0, 5), (0, 5), _SGLANG_05),
)
_NAMES = {"vllm": "vLLM", "sglang": "SGLang"}
_SGLANG_PREFILL_TOKENS = 16384
_SGLANG_MIN_RUNNING = 2048


def _row(engine: str, version: tuple[int, int] | None) -> tuple[tuple[int, int], str, str]:
    """The row for ``engine`` at ``version`` (None: :data:`NEWEST_KNOWN`'s, the one deploy runs):
    its first version, its source, and a note where the version is not stated or not one read."""
    stated = version
    if version is None:
        major, minor = NEWEST_KNOWN[engine].split(".")[:2]
        version = (int(major), int(minor))
    rows = [r for r in _ROWS if r[0] == engine]
    _e, since, first, last, (words, name, where) = [r for r in rows if r[1] <= version][-1]
    read = first <= version[:2] <= last
    nearest = _("; {engine} {version}: nearest documented").format(
        engine=engine, version=f"{version[0]}.{version[1]}"
    )
    if stated is None:
        note = _("; version not stated: the one `gpuplan deploy` runs, {engine} {version}").format(
            engine=_NAMES[engine], version=NEWEST_KNOWN[engine]
        ) + ("" if read else nearest)
    else:
        note = "" if read else nearest
    return since, _(words).format(engine=name, where=where), note


def engine_defaults(
    gpu: GPU,
    engine: str | None = None,
    version: tuple[int, int] | None = None,
    *,
    tensor_parallel: int = 1,
) -> EngineSettings:
    """The scheduling defaults of ``engine`` (``vllm``, ``sglang``; None: not named) at
    ``version`` (major, minor; None: not stated) for a replica of ``tensor_parallel`` × ``gpu``."""
    from gpuplan.perf.memory import usable_memory_gib

    name = engine or "vllm"
    since, source, note = _row(name, version)
    if engine is None:
        note = _("; no engine named: vLLM's") + note
    memory_gib = gpu.memory_gib
    if name == "sglang":
        smi_mib = usable_memory_gib(gpu) * 1024  # gpu_mem: nvidia-smi's total, MiB
        if since < (0, 5):
            chunk = 2048 if smi_mib < 25_000 else 8192
            fraction = {1: 0.88, 2: 0.87}.get(tensor_parallel) or (
                0.79 if tensor_parallel >= 16 else 0.81 if tensor_parallel >= 8 else 0.85
            )
        else:
            chunk = 2048 if smi_mib < 35 * 1024 else 8192 if smi_mib < 160 * 1024 else 16384
            reserved_gib = (
                2.8 + tensor_parallel / 10
                if smi_mib < 35 * 1024
                else 9.5 + tensor_parallel / 2
                if smi_mib < 90 * 1024
                else 12 + tensor_parallel / 2
                if smi_mib < 160 * 1024
                else 32.0
            )
            fraction = round((smi_mib - reserved_gib * 1024) / smi_mib, 3)
        return EngineSettings(
            max_num_seqs=_SGLANG_MIN_RUNNING,
            # Prompts in prefill iterations of their own, up to max_prefill_tokens each.
            max_batched_tokens=max(_SGLANG_PREFILL_TOKENS, chunk),
            chunked_prefill=False,
            prefix_caching=True,
            block_tokens=1,  # page_size 1
            memory_fraction=fraction,
            activations_in_share=False,
            source=_(
                "{source}: chunked_prefill_size {chunk}, max_prefill_tokens {tokens}, "
                "mem_fraction_static {fraction}, radix cache on{note}"
            ).format(
                source=source, chunk=chunk, tokens=_SGLANG_PREFILL_TOKENS, fraction=f"{fraction:g}", note=note
            ),
        )
    if since < (0, 8):
        return EngineSettings(
            max_num_seqs=256,
            max_batched_tokens=2048,
            chunked_prefill=False,
            prefix_caching=False,
            source=f"{source}{note}",
        )
    large = memory_gib >= 70 and (since < (0, 9) or not gpu.id.upper().startswith("A100"))
    return EngineSettings(
        max_num_seqs=1024 if large else 256,
        max_batched_tokens=8192 if large else 2048,
        source=f"{source}{note}",
    )
