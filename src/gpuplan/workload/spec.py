"""The workload spec: what the user's job is, validated at the YAML edge into a frozen ``Workload``.

Every section is a frozen pydantic model that rejects unknown keys. Any problem becomes one
``WorkloadError`` line naming the field path and the fix (``inputs.batch_size: must be ≥ 1 (got 0)``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, ValidationError, field_validator, model_validator

from gpuplan.bounded import MAX_DOCUMENT_BYTES, load_yaml, read_text, refuse_foreign_file
from gpuplan.catalog.city_zones import city_zones
from gpuplan.confine import Folder
from gpuplan.day_load import WEEKDAYS, LoadDay, Schedule
from gpuplan.errors import NotFoundError, Phrase, UnknownChoiceError, WorkloadError
from gpuplan.hardware.gpus import (
    MAX_GPU_COUNT,
    MAX_GPU_MEMORY_GIB,
    MAX_PLANNED_GPUS,
    MAX_PLANNED_NODES,
    MIN_OVER_MAX_GPUS,
)
from gpuplan.i18n.countries import CountryName
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import alternatives, listed
from gpuplan.units import (
    HOURS_PER_MONTH,
    MAX_BUDGET_CNY,
    MAX_BUDGET_USD,
    MAX_STORAGE_GBPS,
    MIN_BUDGET,
    MIN_STORAGE_GBPS,
    read_amount,
    read_count,
)
from gpuplan.vocab import (
    ActivationCheckpointing,
    AdapterDtype,
    AttentionImpl,
    BaseQuantization,
    Commitment,
    DataTransfer,
    GpuLink,
    HostRule,
    LossKind,
    Objective,
    OptimizerName,
    Parallelism,
    Precision,
    PricingModel,
    QuantizationLibrary,
    ServingEngine,
    StackLevel,
    Task,
    Upfront,
    pydantic_cast,
    serving_precision,
)
from gpuplan.workload._validation import Spec, one_line_error, printable_line
from gpuplan.workload.audio import check_audio_inputs, encoder_decoder_generation, takes_audio
from gpuplan.workload.durations import MAX_HOURS, parse_duration_hours, parse_milliseconds
from gpuplan.workload.hf_config import hf_repo_id, read_hf_config
from gpuplan.workload.paths import confine_model
from gpuplan.workload.presets.hub_ids import preset_of_checkpoint
from gpuplan.workload.presets.registry import get_preset
from gpuplan.workload.sizes import parse_gigabytes
from gpuplan.workload.stack import (
    LEVELS,
    Stack,
    StackSpec,
    level_optimizer,
    level_pad_vocab_multiple,
    level_reads_with_a_dataloader,
)

__all__ = [
    "CheckpointSpec",
    "ConstraintsSpec",
    "DataSpec",
    "InputsSpec",
    "LoraSpec",
    "ModelSpec",
    "ScheduleSpec",
    "ServingSpec",
    "StackSpec",
    "Workload",
    "hf_max_positions",
    "load_workload",
]

TaskField = Annotated[Task, BeforeValidator(pydantic_cast(Task))]
PrecisionField = Annotated[Precision, BeforeValidator(pydantic_cast(Precision))]
OptimizerField = Annotated[OptimizerName, BeforeValidator(pydantic_cast(OptimizerName))]
ParallelismField = Annotated[Parallelism, BeforeValidator(pydantic_cast(Parallelism))]
ObjectiveField = Annotated[Objective, BeforeValidator(pydantic_cast(Objective))]
LossField = Annotated[LossKind, BeforeValidator(pydantic_cast(LossKind))]
CheckpointingField = Annotated[
    ActivationCheckpointing, BeforeValidator(pydantic_cast(ActivationCheckpointing))
]
AttentionField = Annotated[AttentionImpl, BeforeValidator(pydantic_cast(AttentionImpl))]
#: A latency target in milliseconds, also written with its unit (``2s``, ``80ms``).
Milliseconds = Annotated[float, BeforeValidator(parse_milliseconds)]
#: A size in GB (10⁹ bytes): a number, or with its unit (``2TB``, ``500GB``, ``1.5TiB``).
Gigabytes = Annotated[float, BeforeValidator(parse_gigabytes)]
TransferField = Annotated[DataTransfer, BeforeValidator(pydantic_cast(DataTransfer))]
QuantizationField = Annotated[BaseQuantization, BeforeValidator(pydantic_cast(BaseQuantization))]
LibraryField = Annotated[QuantizationLibrary, BeforeValidator(pydantic_cast(QuantizationLibrary))]
AdapterDtypeField = Annotated[AdapterDtype, BeforeValidator(pydantic_cast(AdapterDtype))]
Hours = Annotated[float, BeforeValidator(parse_duration_hours)]
#: A budget as ``--budget-usd``/``--budget-cny`` take one (``5k``, ``$5,000``; ``30万``, ``¥1,200,000``),
#: an amount signed in the other currency refused naming the field that takes it.
Dollars = Annotated[float, BeforeValidator(partial(read_amount, currency="usd", other="budget_cny"))]
Yuan = Annotated[float, BeforeValidator(partial(read_amount, currency="cny", other="budget_usd"))]
#: A count as people write one (``1.28M``, ``1,281,167``, ``128万``): :func:`gpuplan.units.read_count`.
Count = Annotated[int, BeforeValidator(read_count)]

#: ``serving.engine``: a name, then ``==`` and a version (``vllm==0.8.5``), pip's spelling.
_ENGINE_PIN = re.compile(r"\s*(?P<name>[A-Za-z][\w.-]*?)\s*(?:==\s*(?P<version>\S+))?\s*")
#: A release as engines number them: major.minor and what follows (0.8.5, 0.8.5.post1, 0.4.1rc2).
_ENGINE_VERSION = re.compile(r"v?\d{1,6}\.\d{1,6}[A-Za-z0-9.+-]{0,40}")
_ENTRY_POINT = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_]\w*")
#: Keys of a Hugging Face config.json that bound the sequence length, in the order checked.
_HF_MAX_POSITION_KEYS = ("max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "seq_length")
#: HF architectures that generate tokens (a service of one gives its request's tokens).
_GENERATING_ARCHITECTURES = ("ForCausalLM", "ForConditionalGeneration", "LMHeadModel")

# Ranges at the schema: a workload file may come from someone else, and a number outside these is a
# typo or an attack (10**400 samples, .inf epochs), never a job. Floats are finite (Spec's config).
#: Per-GPU micro-batch, sequence length, image side: far above any real job.
MAX_BATCH = 1_000_000
MAX_SEQ_LEN = 10_000_000
MAX_IMAGE_SIZE = 65_536
#: Sampling steps of one generated image (diffusers' schedulers run 1 to about 1,000).
MAX_DENOISING_STEPS = 10_000
#: Samples and tokens in a data set: 10^15 is a thousand times the largest public text corpora.
MAX_SAMPLES = 10**15
MAX_TOKENS = 10**18
MAX_EPOCHS = 1_000_000.0
#: A data set of an exabyte, in GB.
MAX_DATA_GB = 1e9
#: The fastest uplink a site is taken to have to one cloud, Gbit/s: AWS Direct Connect's largest
#: dedicated connection is 400 Gbit/s (AWS, "AWS Direct Connect pricing": "Dedicated connection
#: 400 Gbps port hours", https://aws.amazon.com/directconnect/pricing/, read 2026-09); more is
#: taken as a slip of units (Mbit/s written for Gbit/s).
MAX_UPLOAD_GBPS = 400.0
MAX_REPLICAS = 10_000
#: ``share_gpu: true``: four replicas of the one service time-sharing one GPU, the source articles'
#: "1/4 card" (not several services on one card: ``simulate share`` packs those).
QUARTER_CARD = 4
#: Replicas time-sharing one GPU: the NVIDIA device plugin's limit on clients of one GPU (48, CUDA's
#: limit on Volta and later).
MAX_SHARE_GPU = 48
#: Tensor- and pipeline-parallel degrees: no larger than the most GPUs a configuration may name.
MAX_MODEL_PARALLEL = MAX_GPU_COUNT
#: A vocabulary padded to more than this multiple is a typo (Megatron-LM: 128 × tensor-parallel size).
MAX_VOCAB_MULTIPLE = 128 * MAX_MODEL_PARALLEL
#: The longest checkpoint interval a workload may state: a year, in minutes.
MAX_CHECKPOINT_EVERY_MIN = 525_960.0
#: The most checkpoints a workload may keep on disk at once (far above any retention in use).
MAX_CHECKPOINTS_KEPT = 1_000


def _names(value: Any) -> Any:
    """A single string is accepted where a list of names is expected."""
    return [value] if isinstance(value, str) else value


Names = Annotated[tuple[str, ...], BeforeValidator(_names)]


class LoraSpec(Spec):
    """Low-rank adapters on some linear layers; the base weights are frozen."""

    rank: int = Field(ge=1, le=65_536)
    """Adapter rank r (A is r×in, B is out×r)."""
    alpha: float | None = Field(default=None, gt=0, le=1e6)
    """Scale numerator (scaling = alpha / rank); None means alpha = rank. Does not change the trace."""
    targets: Names = ("q", "v")
    """Which projections get adapters: ``q``, ``k``, ``v``, ``o`` (attention) or ``gate``, ``up``,
    ``down`` (MLP) for presets; for other models, the last component of a ``nn.Linear``'s name."""
    quantization: QuantizationField = BaseQuantization.NONE
    """How the frozen base's linear-layer weights are stored: ``none`` (as ``precision`` says),
    ``nf4`` (QLoRA: 4-bit NormalFloat, bitsandbytes ``load_in_4bit`` with
    ``bnb_4bit_quant_type="nf4"``, torchtune's ``qlora_*`` models) or ``int8`` (bitsandbytes
    ``load_in_8bit``, LLM.int8()). Every ``nn.Linear`` of the base is stored so, adapted or not;
    embeddings, norms and the output layer keep the workload's precision. Adapters and their
    optimizer state are unchanged."""
    double_quantization: bool = False
    """``nf4`` only: the block constants quantized again to 8 bits (QLoRA's double quantization,
    bitsandbytes ``bnb_4bit_use_double_quant=True``; torchtune's NF4 always does it). Off by
    default, as bitsandbytes' own default."""
    quantized_head: bool = False
    """The output layer is stored quantized too (Lightning Fabric's ``BitsandbytesPrecision``, which
    litgpt's ``--quantize bnb.*`` uses, replaces every ``nn.Linear``). Off by default: transformers'
    bitsandbytes load and torchtune keep it whole. A head tied to the embeddings stays whole."""
    library: LibraryField = QuantizationLibrary.BITSANDBYTES
    """``nf4`` only: whose 4-bit matmul runs the layers. ``bitsandbytes`` (0.43.2 on, what
    ``pip install bitsandbytes`` installs) and ``torchao`` (torchtune's QLoRA) keep the quantized
    weight only; ``bitsandbytes-0.42`` (as litgpt pinned it) also keeps each quantized layer's input
    for backward and dequantizes through fp16."""

    dtype: AdapterDtypeField = AdapterDtype.FP32
    """What the adapters, their gradients and their optimizer state are kept in: ``fp32`` (Hugging
    Face PEFT's default, whatever the base's dtype) or ``model`` (the model's weight dtype as
    ``precision`` sets it, as torchtune and litgpt build them: bf16 under ``precision: bf16``)."""
    dropout: float = Field(default=0.0, ge=0.0, lt=1.0)
    """Dropout on each adapter's input before ``A`` (PEFT's, torchtune's and litgpt's
    ``lora_dropout``; 0, their default, applies none). In training it keeps a dropped copy of the
    layer's input and a one-byte mask per element for backward, per adapted layer."""

    @field_validator("targets")
    @classmethod
    def _non_empty(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise _refused(N_("list at least one target, e.g. [q, v]"))
        return v

    @model_validator(mode="after")
    def _double_needs_nf4(self) -> LoraSpec:
        if self.double_quantization and self.quantization is not BaseQuantization.NF4:
            raise _refused(
                N_("double_quantization: applies to quantization: nf4 only (got {quantization})"),
                quantization=self.quantization.value,
            )
        if self.quantized_head and not self.quantized:
            raise _refused(N_("quantized_head: needs a quantized base (quantization: nf4 or int8)"))
        if (
            self.library is not QuantizationLibrary.BITSANDBYTES
            and self.quantization is not BaseQuantization.NF4
        ):
            raise _refused(
                N_("library: {library} applies to quantization: nf4 only (got {quantization})"),
                library=self.library.value,
                quantization=self.quantization.value,
            )
        return self

    @property
    def quantized(self) -> bool:
        """Whether the frozen base's linear weights are stored quantized."""
        return self.quantization is not BaseQuantization.NONE


class ModelSpec(Spec):
    """Where the model comes from: exactly one of ``preset``, ``hf_config``, ``python``."""

    preset: str | None = None
    """A built-in model name (``gpt2``, ``llama-7b``, ``resnet50`` …)."""
    hf_config: str | None = None
    """A Hugging Face ``config.json`` (or a folder holding one), relative to ``project_dir``."""
    python: str | None = None
    """An entry point ``package.module:function`` in the user's project (see ``workload.user_code``)."""
    project_dir: str | None = None
    """Folder relative paths and user modules are resolved from; the YAML file's folder by default.
    Read from a file, it must lie inside the folder the user named (``gpuplan.confine``)."""
    hub_id: str | None = None
    """The Hugging Face Hub checkpoint a serving engine (or a batch job's engine) loads, ``owner/name``:
    weights of this architecture, such as your own fine-tune of it. None: the preset's published
    checkpoint, or the config's own ``_name_or_path`` (which a config.json downloaded from the Hub
    does not carry). Not with ``python``: an engine cannot load your own code's model."""
    checkpoint_dtype: Literal["float32", "float16", "bfloat16"] | None = None
    """The dtype ``hub_id``'s checkpoint stores its weights in (its config.json's ``torch_dtype``):
    what a serving engine downloads onto each node's disk. ``fp32``, ``fp16`` and ``bf16`` are read
    as their long names. None: a preset's known checkpoint's, or an HF config's ``torch_dtype``,
    else not known (the weights are counted at fp32, the widest: a disk too small never serves)."""
    lora: LoraSpec | None = None
    frozen: Names = ()
    """Module-name prefixes whose parameters are frozen (``embeddings``, ``encoder.layer.0``)."""
    pad_vocab_multiple: int | None = Field(default=None, ge=1, le=MAX_VOCAB_MULTIPLE)
    """The vocabulary rounded up to a multiple of this, as the training code does: NVIDIA's BERT
    scripts and FlashAttention's training configs pad to 8, Megatron-LM to
    ``--make-vocab-size-divisible-by`` (128) × the tensor-parallel size. A vocabulary that is not a
    multiple of 8 (GPT-2's 50,257) makes its output layer's GEMMs misaligned, and slower. None: the
    model's own vocabulary. Presets and HF configs (user code pads its own)."""

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        # ``model: gpt2`` is short for ``model: {preset: gpt2}``.
        return {"preset": data} if isinstance(data, str) else data

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, v: str | None) -> str | None:
        # NB: an unknown preset raises NotFoundError (with suggestions), not a validation error.
        return None if v is None else get_preset(v).name

    @field_validator("hub_id")
    @classmethod
    def _hub_id(cls, v: str | None) -> str | None:
        if v is not None and not hf_repo_id(v.strip()):
            raise _refused(
                N_("expected a Hugging Face model id such as 'Qwen/Qwen2.5-7B-Instruct' (got {value!r})"),
                value=v[:100],
            )
        return None if v is None else v.strip()

    @field_validator("checkpoint_dtype", mode="before")
    @classmethod
    def _dtype_names(cls, v: Any) -> Any:
        # the short names the workload's own precision uses
        short = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
        return short.get(v.strip().lower(), v.strip().lower()) if isinstance(v, str) else v

    @field_validator("python")
    @classmethod
    def _entry_point(cls, v: str | None) -> str | None:
        if v is not None and not _ENTRY_POINT.fullmatch(v.strip()):
            raise _refused(N_("expected 'package.module:function' (got {value!r})"), value=v)
        return None if v is None else v.strip()

    @model_validator(mode="after")
    def _one_source(self) -> ModelSpec:
        given = [k for k in ("preset", "hf_config", "python") if getattr(self, k) is not None]
        if len(given) != 1:
            what = Phrase(N_("got {names}"), names=listed(given)) if given else Phrase(N_("got none"))
            raise _refused(N_("give exactly one of preset, hf_config or python ({what})"), what=what)
        if self.hub_id is not None and self.python is not None:
            raise _refused(N_("hub_id names weights for a preset or an HF config, not for your own code"))
        if self.checkpoint_dtype is not None and self.hub_id is None:
            raise _refused(
                N_("checkpoint_dtype says how hub_id's checkpoint stores its weights: give hub_id with it")
            )
        if self.hub_id is not None and self.preset is not None:
            # another preset's published checkpoint is another architecture: the plan would price
            # this one and the engine load that one (an 8B plan serving a 70B model on one GPU)
            other = preset_of_checkpoint(self.hub_id)
            if other is not None and other != self.preset:
                raise _refused(
                    N_(
                        "hub_id {hub_id} is the checkpoint of preset {other}, not of {preset}'s "
                        "architecture: plan it as model: {{preset: {other}}}"
                    ),
                    hub_id=self.hub_id,
                    other=other,
                    preset=self.preset,
                )
        if self.pad_vocab_multiple is not None:
            if self.python is not None:
                no_code = N_("pad_vocab_multiple applies to a preset or an HF config, not to your own code")
                raise _refused(no_code)
            if self.preset is not None and not get_preset(self.preset).arch.vocab:
                no_vocab = N_("pad_vocab_multiple: preset {preset!r} has no vocabulary")
                raise _refused(no_vocab, preset=self.preset)
        return self

    @property
    def base_dir(self) -> Path:
        """Folder relative paths are resolved from (``project_dir``, else the current directory)."""
        return Path(self.project_dir) if self.project_dir else Path.cwd()

    @property
    def hf_config_path(self) -> Path | None:
        """``hf_config`` as an absolute path (to the file or the folder holding config.json)."""
        if self.hf_config is None:
            return None
        p = Path(self.hf_config).expanduser()
        return p if p.is_absolute() else (self.base_dir / p).resolve()


class InputsSpec(Spec):
    """One training (or inference) micro-batch on one GPU."""

    batch_size: int = Field(ge=1, le=MAX_BATCH)
    """Samples per GPU per micro-batch, like HF ``per_device_train_batch_size``."""
    seq_len: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """Tokens per sample (text models); the encoder length for encoder-decoders."""
    target_len: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """Decoder tokens per sample for encoder-decoders (T5); ``seq_len`` when omitted."""
    image_size: int | None = Field(default=None, ge=1, le=MAX_IMAGE_SIZE)
    """Square image side in pixels (vision models)."""
    output_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """Batch generation (a decoder LLM's ``task: infer`` without ``serving:``): tokens each sample
    generates after its prompt of ``seq_len`` tokens (a summary's, an answer's length). The job is
    then priced as an engine runs it: prefill, then decode with continuous batching at the KV
    cache's concurrency; left out, each sample is one forward pass over ``seq_len`` tokens (an
    embedding, a classification, a score)."""
    masked_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """Masked-LM pre-training (BERT presets, ``task: train``): positions per sequence the MLM head
    scores. NVIDIA's BERT scripts score only the masked ones (``dense_seq_output``, at most
    ``max_predictions_per_seq``); None scores every position, as Hugging Face's BertForMaskedLM does."""
    denoising_steps: int | None = Field(default=None, ge=1, le=MAX_DENOISING_STEPS)
    """Image generation with a denoiser (a diffusion UNet or DiT as your own code, ``task: infer``
    with ``image_size``): the sampling steps one image takes (diffusers' ``num_inference_steps``).
    Each sample is then an image made by that many denoiser calls of the traced batch (with
    :attr:`guidance` each a call of twice it): ``data.samples`` counts images, throughput is in
    images/s, and a service's request is one image. Left out: each sample is one forward pass."""
    guidance: bool = False
    """With ``denoising_steps``: classifier-free guidance, the inputs with and without the prompt in
    one denoiser call of twice the batch a step, as diffusers runs it at ``guidance_scale`` above 1
    (timed by ``perf.image_serving.image_calls``)."""

    @property
    def denoiser_calls(self) -> int | None:
        """Denoiser calls one image makes: ``denoising_steps`` × 2 with ``guidance`` (the
        conditional and unconditional inputs, run together in one call of twice the batch, whose
        time on a GPU ``perf.image_serving.image_calls`` gives); None where the workload does not
        generate images with a denoiser."""
        if self.denoising_steps is None:
            return None
        return self.denoising_steps * (2 if self.guidance else 1)

    @model_validator(mode="after")
    def _one_size(self) -> InputsSpec:
        if self.seq_len is not None and self.image_size is not None:
            raise _refused(N_("give seq_len (text) or image_size (vision), not both"))
        if self.masked_tokens is not None and self.masked_tokens > (self.seq_len or 0):
            raise _refused(
                N_("masked_tokens: {n} is more than the sequence's {seq} tokens; use {seq} or less"),
                n=self.masked_tokens,
                seq=self.seq_len or 0,
            )
        if self.denoising_steps is not None and self.image_size is None:
            raise _refused(
                N_("denoising_steps: a denoiser generates images; give image_size (the image's side, px)")
            )
        if self.guidance and self.denoising_steps is None:
            raise _refused(N_("guidance: needs denoising_steps, the sampling steps of one image"))
        return self


class DataSpec(Spec):
    """The data set one run goes through."""

    samples: Count | None = Field(default=None, ge=1, le=MAX_SAMPLES)
    """How many samples one epoch goes through: a number, or written as ``1,281,167``, ``1.28M`` or
    ``128万``."""
    tokens: Count | None = Field(default=None, ge=1, le=MAX_TOKENS)
    """Alternative to ``samples`` for text: samples = tokens / seq_len; written as ``samples``
    (``50M``, ``2B``)."""
    epochs: float = Field(default=1.0, gt=0, le=MAX_EPOCHS)
    size_gb: Gigabytes | None = Field(default=None, ge=0, le=MAX_DATA_GB)
    """Size of the data set in GB (10⁹ bytes), for storage and egress; a number, or with its unit
    (``2TB``, ``500GB``, ``1.5TiB``)."""
    results_gb: Gigabytes | None = Field(default=None, ge=0, le=MAX_DATA_GB)
    """Size of what one run writes back to ``location`` (a batch job's outputs, a training job's
    exported weights), GB (10⁹ bytes), priced as egress out of the option's region. Left out: a
    training job sends its trained weights back (2 bytes each); a batch inference job's results are
    not priced (the plan says so); 0: nothing is sent back."""
    location: str | None = None
    """Where the data lives now, ``provider/region`` (``aws/us-east-1``)."""
    transfer: TransferField = DataTransfer.PER_NODE
    """How a multi-node job gets the dataset: ``per_node`` (each node downloads its own copy: each
    copy pays the transfer) or ``fan_out`` (one copy into the region, shared inside it)."""
    upload_gbps: float | None = Field(default=None, gt=0, le=MAX_UPLOAD_GBPS)
    """The uplink from your own site to the cloud, Gbit/s, for data that is there (no ``location``):
    the dataset's copies are uploaded over it, ``per_node`` copies sharing it (6 copies of 1,500 GB at
    1 Gbit/s: 20 h), which the set-up bills on every instance. Left out: each instance is taken to
    copy the dataset at the disk's assumed 0.131 GB/s (gp3's baseline, 125 MiB/s), and the plan
    says so."""
    copy_gbps: float | None = Field(default=None, ge=MIN_STORAGE_GBPS, le=MAX_STORAGE_GBPS)
    """The rate your team measured copying this dataset onto an instance's disk (or reading it where
    it is), GB/s (10⁹ bytes a second), 0.001 to 1,000: each instance's set-up copy is timed and
    billed at it, or at the instance's network where the catalog states a slower one. ``plan
    --copy-gbps`` overrides it. Left out: 0.131 GB/s, the baseline of AWS's gp3 volume (125 MiB/s),
    as every disk's throughput is taken where it is not known."""

    @field_validator("location")
    @classmethod
    def _location(cls, v: str | None) -> str | None:
        if v is None:
            return None
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", v):
            # "onprem", "local", "office": data on the user's own site is what no location means
            raise _refused(
                N_(
                    "expected provider/region like aws/us-east-1 (got {value!r}); for data on your own "
                    "site, leave location out: it is then uploaded from there"
                ),
                value=v,
            )
        # The provider as its code (``amazon/…`` → ``aws/…``), so that egress compares like with like.
        from gpuplan.catalog.providers import PROVIDERS

        provider, region = v.split("/", 1)
        return f"{pydantic_cast(PROVIDERS)(provider)}/{region}"

    @model_validator(mode="after")
    def _check(self) -> DataSpec:
        if self.samples is not None and self.tokens is not None:
            raise _refused(N_("give samples or tokens, not both"))
        if self.upload_gbps is not None and self.location is not None:
            raise _refused(
                N_(
                    "upload_gbps: your site's uplink applies to data on your own site, and location "
                    "says the data is in {location}; leave one of them out"
                ),
                location=self.location,
            )
        return self


class CheckpointSpec(Spec):
    """How a training job checkpoints, as its launch does it: the plan prices the writes and the
    disk they take, and ``gpuplan deploy`` writes the same into train.py."""

    every_min: float | None = Field(default=None, gt=0, le=MAX_CHECKPOINT_EVERY_MIN)
    """Minutes between checkpoints (train.py's ``CHECKPOINT_INTERVAL_MIN``). Each write stops every
    GPU while rank 0 saves. Left out: 30 min off spot; on spot, the planner's Young/Daly interval.
    Given: the interval off spot, and on spot wherever it is shorter than Young/Daly's (the plan says
    which it used)."""
    keep: int | None = Field(default=None, ge=2, le=MAX_CHECKPOINTS_KEPT)
    """Checkpoints on disk at once at the most, the one being written included (train.py's
    ``KEEP_CHECKPOINTS``): the storage holds ``keep`` × one checkpoint. At least 2, so that the last
    complete one survives a write cut short. Left out: 2."""


_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")
_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _clock_minutes(text: str) -> int | None:
    """``09:30`` as minutes after midnight (``24:00`` is 1,440); None where it is not such a time."""
    m = _CLOCK.fullmatch(text.strip())
    if m is None:
        return None
    h, mins = int(m[1]), int(m[2])
    if mins > 59 or h > 24 or (h == 24 and mins):
        return None
    return h * 60 + mins


class ScheduleSpec(Spec):
    """The hours a service runs (``serving.schedule``): outside them no replica runs, and the plan,
    ``tco`` and ``deploy`` price and launch it so (``plan/service_day.py``)."""

    hours: str
    """The hours each day it runs, local time: ``09:00-19:00`` (up to ``24:00``), the end after the
    start (a night service that runs past midnight is two days' hours)."""
    days: tuple[str, ...] = WEEKDAYS
    """The days it runs: ``mon-fri``, ``[mon, tue, thu]`` or ``mon,wed,fri``. Left out: every day."""
    time_zone: str
    """The IANA time zone the hours are in: ``Asia/Shanghai``, ``Europe/Berlin``, ``UTC``."""

    @field_validator("hours")
    @classmethod
    def _hours(cls, v: str) -> str:
        start, sep, end = v.partition("-")
        a, b = _clock_minutes(start), _clock_minutes(end)
        if not sep or a is None or b is None:
            raise _refused(
                N_("hours {value!r}: write them as 09:00-19:00 (24-hour clock, local time)"), value=v
            )
        if b <= a:
            raise _refused(
                N_(
                    "hours {value!r}: the end is not after the start; a service that runs past midnight "
                    "is written as the hours of each day (e.g. 00:00-24:00)"
                ),
                value=v,
            )
        return f"{a // 60:02d}:{a % 60:02d}-{b // 60:02d}:{b % 60:02d}"

    @field_validator("days", mode="before")
    @classmethod
    def _days(cls, v: object) -> object:
        if isinstance(v, str):
            v = [p for p in v.replace(" ", "").split(",") if p]
        if not isinstance(v, list | tuple) or not v or not all(isinstance(p, str) for p in v):
            raise _refused(N_("days: write them as mon-fri, or a list such as [mon, wed, fri]"))
        picked: list[int] = []
        for part in v:
            ends = part.strip().lower().split("-")
            if len(ends) > 2:
                raise _refused(N_("days {value!r}: a range is two days, as mon-fri"), value=part)
            found = []
            for day in ends:
                key = day[:3] if day in _DAY_NAMES else day
                if key not in WEEKDAYS:
                    raise ValueError(NotFoundError("weekday", day, WEEKDAYS))
                found.append(WEEKDAYS.index(key))
            first, last = found[0], found[-1]
            picked += (
                list(range(first, last + 1)) if first <= last else [*range(first, 7), *range(0, last + 1)]
            )
        return tuple(WEEKDAYS[d] for d in sorted(set(picked)))

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, v: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError):
            known = available_timezones()
            city = city_zones(v)
            zones = [z for z in city.zones if z in known] if city is not None else []
            if city is not None and zones:
                # a city the tz database names no zone after ("Europe/Munich"): its country's zone,
                # where the nearest spellings are other countries' ('Europe/Zurich')
                raise _refused(
                    N_("unknown time zone {name!r}; {city} is in {country}: did you mean {zones}?"),
                    name=v,
                    city=v.rpartition("/")[2].replace("_", " "),
                    country=CountryName(city.country),
                    zones=alternatives(repr(z) for z in zones),
                ) from None
            raise ValueError(
                NotFoundError(
                    "time zone",
                    v,
                    sorted(known),
                    hint=N_("an IANA time zone, as Asia/Shanghai or Europe/Berlin"),
                )
            ) from None
        return v

    @model_validator(mode="after")
    def _not_all_week(self) -> ScheduleSpec:
        if self.hours == "00:00-24:00" and len(self.days) == 7:
            raise _refused(N_("a schedule of every hour of every day is no schedule: leave it out"))
        return self

    @property
    def hours_per_month(self) -> float:
        """The hours a month it runs: its hours a week over a month of
        :data:`~gpuplan.units.HOURS_PER_MONTH`."""
        return self.window.hours_per_week * HOURS_PER_MONTH / (7 * 24)

    @property
    def window(self) -> Schedule:
        """The schedule as the plan and deploy read it."""
        start, end = (_clock_minutes(t) for t in self.hours.split("-"))
        assert start is not None and end is not None  # _hours
        return Schedule(
            start_min=start,
            end_min=end,
            weekdays=tuple(WEEKDAYS.index(d) for d in self.days),
            zone=self.time_zone,
        )


class ServingSpec(Spec):
    """The load an inference deployment must carry."""

    #: Keys users write that this section does not take, with where their meaning is found instead.
    key_hints: ClassVar[Mapping[str, str]] = MappingProxyType(
        {
            key: N_(
                "the time-per-output-token target is written tpot_p95_ms (milliseconds, at the 95th "
                "percentile)"
            )
            for key in ("tpot_ms", "tpot_p95", "itl_p95_ms", "tbt_p95_ms")
        }
    )

    requests_per_s: float = Field(gt=0, le=1e9)
    """The load the replicas are sized for: the peak, where the load varies."""
    mean_requests_per_s: float | None = Field(default=None, gt=0, le=1e9)
    """The load averaged over the month (e.g. a day's requests over 86,400 s), which the cost per
    token is taken over; None: ``requests_per_s`` all month."""
    prompt_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """A request's prompt, tokens: the mean over the traffic (capacity is the mean request's work).
    Needed by a language model's service; an image service (``inputs.denoising_steps``) has none."""
    output_tokens: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """A request's answer, tokens: the mean over the traffic (with ``prompt_tokens``)."""
    prompt_tokens_p95: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """The 95th-percentile prompt, tokens: the p95 time to first token is checked at it. Left out:
    ``prompt_tokens`` × 3.572, the longer tail of the two published Azure LLM inference traces
    (``gpuplan.perf.request_tail``), not every request at the mean."""
    output_tokens_p95: int | None = Field(default=None, ge=1, le=MAX_SEQ_LEN)
    """The 95th-percentile answer, tokens: the p95 latency is checked at it. Left out:
    ``output_tokens`` × 3.228, the longer tail of the two published Azure LLM inference traces (the
    conversation trace's is 2.136: 451 over a mean of 211)."""
    p95_latency_ms: Milliseconds | None = Field(default=None, gt=0, le=1e9)
    """Latency target for a whole request at the 95th percentile, in milliseconds."""
    ttft_p95_ms: Milliseconds | None = Field(default=None, gt=0, le=1e9)
    """Time-to-first-token target at the 95th percentile, in milliseconds: the wait in the queue
    and the prompt's prefill, before the first output token (a chat API's usual target)."""
    tpot_p95_ms: Milliseconds | None = Field(default=None, gt=0, le=1e9)
    """Time-per-output-token target at the 95th percentile, in milliseconds: the gap between a
    streamed answer's tokens, a chat API's other usual target. The plan sizes replicas so that the
    decode step at the load's operating point is within it; the p95 over a real load trace is
    checked by ``gpuplan simulate autoscale``, whose default targets include it."""
    users_in: Names = ()
    """Countries the service's users are in, by ISO code or name (``[SG, CN]``, as ``countries``
    takes them): the plan adds the network round trip from each option's region to the farthest of
    them to the p95 time-to-first-token and p95 latency targets (not to the time per output token:
    the gaps between streamed tokens are not round trips), and leaves out the regions that then miss
    them. Left out: the targets are taken at the server, the network not counted."""
    response_bytes: int | None = Field(default=None, ge=1, le=10**9)
    """Bytes one answer sends its client on the wire, headers and framing included: what the
    month's answers pay internet egress on. Left out: streamed, as an OpenAI-style API sends it
    to a client that asks for ``stream: true`` (one server-sent event per token, 316 bytes each;
    ``gpuplan.plan.answer_bytes``), the larger case. An answer sent whole is about 5 bytes a token
    of text plus 1 kB (``response_bytes: 2500`` for 300 tokens). An image service's answer left out
    is one image at its bound, its pixels uncompressed as base64 inside JSON
    (``gpuplan.plan.answer_bytes.image_answer_bytes``)."""
    # Deployment settings, read by ``gpuplan deploy`` (deploy/spec.py validates their shape):
    gpu_utilization_target: float | None = Field(default=None, gt=0, le=100)
    """Scale out above this average GPU utilisation, percent (default 80)."""
    share_gpu: int | bool | None = None
    """Replicas of this one service time-sharing one GPU (``true`` = 4, the "1/4 card" of the source
    articles; several services on shared cards are ``simulate share``'s). The plan prices them so:
    each replica holds a 1/n share of the GPU's memory and runs a 1/n share of its time, less the
    context switches; the GPUs whose share holds no replica are left out, and the plan names them."""
    mig_profile: str | None = None
    """A MIG profile such as ``1g.10gb`` for each replica."""
    min_replicas: int | None = Field(default=None, ge=0, le=MAX_REPLICAS)
    """The fewest replicas the autoscaler keeps; 0 only with a ``schedule`` (none outside its hours)."""
    max_replicas: int | None = Field(default=None, ge=1, le=MAX_REPLICAS)
    schedule: ScheduleSpec | None = None
    """The hours the service runs (``hours``, ``days``, ``time_zone``); no replica runs outside them,
    and it is priced for its hours only. Left out: it runs all month."""
    day: dict[str, float] | None = None
    """The service's day as its team knows it: requests/s at times of day, ``{"00:00": 3, "19:30":
    3, "20:00": 40, "23:00": 40, "23:30": 3}`` (24-hour clock, local time, quoted), linear between
    consecutive times, the last leading to the first at midnight. The plan and ``tco`` price the
    autoscaled fleet on it minute by minute, and its mean is the workload's mean
    (``mean_requests_per_s``). Left out: a cosine day fitted to the mean and the peak."""
    engine: str | None = None
    """The serving engine and its version, as pip pins it: ``vllm==0.8.5``, ``sglang==0.4.1``; the
    engine alone (``vllm``) when the version is not known. Its CPU work between two iterations, and
    whether it overlaps the GPU's, comes from a published measurement (vLLM 0.8 to 0.13 and SGLang
    before 0.4 wait for it; vLLM from 0.14 and SGLang from 0.4 overlap it). Left out, or without a
    version, the engine is taken not to overlap it (the slower case)."""
    prefix_caching: bool | None = None
    """Whether the engine keeps computed prefixes in its KV cache for reuse (vLLM
    ``--enable-prefix-caching``, on by default from V1, 0.8; SGLang's radix cache, on unless
    ``--disable-radix-cache``). Left out: the engine's default at its version (vLLM's when no
    engine is named). The serving simulation honours it where it knows the prefix: a preempted
    request finds its own computed blocks still cached. Prompts that share a prefix across requests
    (a system prompt) are not skipped: a trace gives each request's prompt and output lengths only,
    not which tokens two prompts share."""

    @field_validator("users_in")
    @classmethod
    def _users_in(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        from gpuplan.catalog.region_countries import country_codes_of
        from gpuplan.errors import GpuplanError

        try:
            # a city is refused in the field's own words (`users_in: GB`), not --countries'
            return tuple(dict.fromkeys(code for name in v for code in country_codes_of(name, "users_in:")))
        except GpuplanError as e:
            raise ValueError(e) from None

    @field_validator("day", mode="before")
    @classmethod
    def _day(cls, v: object) -> object:
        if v is None:
            return v
        if not isinstance(v, Mapping) or len(v) < 2:
            raise _refused(
                N_('at least two times of day with their requests/s, as {{"00:00": 3, "20:00": 40}}')
            )
        points: dict[int, float] = {}
        for time, rate in v.items():
            minute = _clock_minutes(time) if isinstance(time, str) else None
            if isinstance(time, int) and not isinstance(time, bool) and 0 <= time < 1440:
                # YAML 1.1 reads 19:30 unquoted as the number 19 × 60 + 30 = 1170: the time it was
                raise _refused(
                    N_(
                        'time {value!r} is {clock} unquoted, which YAML reads as a number: write it "{clock}"'
                    ),
                    value=time,
                    clock=f"{time // 60:02d}:{time % 60:02d}",
                )
            if minute is None or minute >= 1440:
                raise _refused(
                    N_('time {value!r}: write it as "19:30" (24-hour clock, 00:00 to 23:59, quoted)'),
                    value=time,
                )
            if minute in points:
                raise _refused(N_("{value!r} is given twice"), value=time)
            ok = isinstance(rate, int | float) and not isinstance(rate, bool)
            if not ok or not math.isfinite(float(rate)) or float(rate) < 0:
                raise _refused(
                    N_("{time}: the requests/s must be a number, 0 or more (got {value!r})"),
                    time=time,
                    value=rate,
                )
            points[minute] = float(rate)
        if not any(points.values()):
            raise _refused(N_("every rate is 0: a day with no requests has no service to plan"))
        return {f"{m // 60:02d}:{m % 60:02d}": points[m] for m in sorted(points)}

    @field_validator("gpu_utilization_target")
    @classmethod
    def _utilization(cls, v: float | None) -> float | None:
        return None if v is None else utilization_percent(v)

    @field_validator("share_gpu")
    @classmethod
    def _share(cls, v: int | bool | None) -> int | bool | None:
        if v is None or isinstance(v, bool) or 1 <= v <= MAX_SHARE_GPU:
            return v
        raise _refused(
            N_("replicas time-sharing one GPU: 1 to {most} (or true for 4), got {value}"),
            most=MAX_SHARE_GPU,
            value=v,
        )

    @model_validator(mode="after")
    def _replica_range(self) -> ServingSpec:
        # plan and estimate had taken min 5, max 2 (and priced 6 GPUs) that deploy and simulate refuse
        if (
            self.min_replicas is not None
            and self.max_replicas is not None
            and self.max_replicas < self.min_replicas
        ):
            raise _refused(N_("max_replicas is below min_replicas"))
        if self.min_replicas == 0 and self.schedule is None:
            # an autoscaler that goes to zero on its own waits a replica's cold start for the next
            # request; on a schedule the hours say when none is needed
            raise _refused(
                N_(
                    "min_replicas 0 needs a schedule (serving.schedule: the hours it runs, none outside "
                    "them); without one, at least 1"
                )
            )
        if self.mean_requests_per_s is not None and self.mean_requests_per_s > self.requests_per_s:
            # the mean above the load the replicas are sized for: the two written the other way round
            raise _refused(
                N_(
                    "mean_requests_per_s ({mean:g}) is above requests_per_s ({peak:g}), the load the "
                    "replicas are sized for: give the peak as requests_per_s"
                ),
                mean=self.mean_requests_per_s,
                peak=self.requests_per_s,
            )
        return self

    @model_validator(mode="after")
    def _day_fits(self) -> ServingSpec:
        day = self.load_day
        if day is None:
            return self
        if self.schedule is not None:
            raise _refused(
                N_(
                    "serving.day and serving.schedule: give one or the other (the day's load, or the "
                    "hours it runs)"
                )
            )
        if day.highest > self.requests_per_s * (1 + 1e-9):
            # the fleet is sized for requests_per_s: a day above it would be served by a fleet too small
            raise _refused(
                N_(
                    "serving.day reaches {high:g} requests/s, above requests_per_s ({peak:g}), the peak "
                    "the fleet is sized for: give the day's peak as requests_per_s"
                ),
                high=day.highest,
                peak=self.requests_per_s,
            )
        mean = day.mean
        given = self.mean_requests_per_s
        if given is not None and not math.isclose(given, mean, rel_tol=0.01):
            raise _refused(
                N_(
                    "mean_requests_per_s ({given:g}) is not serving.day's mean ({mean:g} requests/s): "
                    "leave it out, the day's mean is taken"
                ),
                given=given,
                mean=round(mean, 3),
            )
        # the day's mean is the workload's mean, wherever the mean is read (egress, cost per token, …)
        object.__setattr__(self, "mean_requests_per_s", mean)
        self.__pydantic_fields_set__.add("mean_requests_per_s")
        return self

    @property
    def load_day(self) -> LoadDay | None:
        """``day`` as the plan reads it; None where the workload gives none."""
        if self.day is None:
            return None
        return LoadDay(points=tuple((_clock_minutes(t) or 0, r) for t, r in self.day.items()))

    @property
    def scales_down(self) -> bool:
        """Its launch runs fewer replicas than the plan's fleet at times: it sets ``min_replicas``
        (the autoscaler may go down to it) or a ``schedule`` (none outside its hours)."""
        return "min_replicas" in self.model_fields_set or self.schedule is not None

    @property
    def served_hours_per_month(self) -> float:
        """The hours a month it runs: its schedule's (its hours a week over a month of
        :data:`~gpuplan.units.HOURS_PER_MONTH`), else all month."""
        return HOURS_PER_MONTH if self.schedule is None else self.schedule.hours_per_month

    @property
    def billed_requests_per_s(self) -> float:
        """The load the month's tokens are counted at (:attr:`mean_requests_per_s`, else the peak)."""
        return self.mean_requests_per_s if self.mean_requests_per_s is not None else self.requests_per_s

    @property
    def replicas_per_gpu(self) -> int:
        """Replicas time-sharing one GPU (``share_gpu``; 1: a whole GPU each, also under a
        ``mig_profile``, whose slices the plan does not price)."""
        if self.mig_profile:
            return 1
        if self.share_gpu is True:
            return QUARTER_CARD
        return self.share_gpu or 1

    @field_validator("engine", mode="before")
    @classmethod
    def _engine(cls, v: object) -> str | None:
        if v is None:
            return None
        found = _ENGINE_PIN.fullmatch(v) if isinstance(v, str) and len(v) <= 80 else None
        if found is None:
            raise _refused(N_('write the engine as "vllm==0.8.5" (or the name alone: vllm, sglang)'))
        name = pydantic_cast(ServingEngine)(found["name"])
        version = found["version"]
        if version is None:
            return name.value
        if _ENGINE_VERSION.fullmatch(version) is None:
            raise _refused(
                N_("engine version {version!r}: write it as numbers, e.g. vllm==0.8.5"), version=version
            )
        return f"{name.value}=={version.lstrip('v')}"

    @property
    def tokens(self) -> tuple[int, int]:
        """A language model's request: its prompt and answer tokens (the means). Read only where
        the workload has them (``Workload`` refuses a service of neither tokens nor
        ``inputs.denoising_steps``)."""
        assert self.prompt_tokens is not None and self.output_tokens is not None
        return self.prompt_tokens, self.output_tokens

    @property
    def engine_name(self) -> str | None:
        """``vllm`` or ``sglang``; None when the workload does not name its engine."""
        return None if self.engine is None else self.engine.split("==")[0]

    @property
    def engine_version(self) -> tuple[int, int] | None:
        """The engine's (major, minor) version; None when not stated."""
        if self.engine is None or "==" not in self.engine:
            return None
        major, minor = self.engine.split("==")[1].split(".")[:2]
        return int(major), int(re.match(r"\d+", minor)[0])  # type: ignore[index]


class ConstraintsSpec(Spec):
    """What the planner may choose from and what it must meet."""

    deadline_hours: Hours | None = Field(default=None, alias="deadline")
    """Wall-clock limit; written ``12h``, ``2d``, ``90m`` or a number of hours."""
    budget_usd: Dollars | None = Field(default=None, ge=MIN_BUDGET, le=MAX_BUDGET_USD)
    """The budget in dollars: a number, or written as ``5k`` or ``$5,000``."""
    budget_cny: Yuan | None = Field(default=None, ge=MIN_BUDGET, le=MAX_BUDGET_CNY)
    """The budget in yuan instead of ``budget_usd`` (converted at the catalog's dated CNY rate,
    which the plan names); not both. A number, or written as ``30万``, ``¥1,200,000`` or ``1.2亿``."""
    providers: Names = ()
    gpus: Names = ()
    """GPUs the planner may choose (``T4``, ``L4``, ``a100-80gb``); a family name (``A100``) allows
    each of its variants; empty = every GPU."""
    regions: Names = ()
    countries: Names = ()
    """ISO country codes or names the data and GPUs may be in."""
    hosts: str | None = None
    """Which hosts the GPUs may be on: ``any`` (default) or ``provider``, only machines a provider
    runs in its own or vetted data centres (a community host, a machine an independent host lists,
    and a host whose kind its provider does not state are left out)."""
    pricing: Names = ()
    """Pricing models allowed (``on_demand``, ``spot``, ``monthly``, ``reserved_1y`` …); empty = all."""
    max_gpus: int | None = Field(default=None, ge=1, le=MAX_PLANNED_GPUS)
    """Most GPUs in all, up to what the planner searches (its default)."""
    min_gpus: int | None = Field(default=None, ge=1, le=MAX_PLANNED_GPUS)
    """Fewest GPUs in all (a recipe tuned for its GPU count: ``min_gpus: 8`` with ``max_gpus: 8``
    plans exactly 8); for a service, its whole fleet's, every replica's together. At most
    ``max_gpus``; above the default search, the search reaches it."""
    max_nodes: int | None = Field(default=None, ge=1, le=MAX_PLANNED_NODES)
    """Most instances the job may span, up to what the planner searches (its default: 8 for a job
    whose nodes work as one; for a service, whose replicas are independent servers, that search)."""
    min_gpu_memory_gib: float | None = Field(default=None, gt=0, le=MAX_GPU_MEMORY_GIB)
    interconnect: str | None = None
    """Required GPU link inside a multi-GPU node: ``nvlink``, ``nvswitch``, ``pcie`` or
    ``infinity fabric`` (the network between nodes is not this)."""
    compliance: Names = ()
    """Certifications the provider must hold (e.g. ``hipaa``, ``mlps3``), from a reliable source: a
    label only an article claims counts with ``--allow-low-confidence`` alone."""
    objective: ObjectiveField = Objective.COST
    """``cost`` (default: the cheapest that meets deadline and budget), ``time`` or ``balanced``."""
    commitment: str | None = None
    """Longest commitment acceptable: ``none``, ``monthly``, ``1y`` or ``3y``."""
    upfront: str | None = None
    """How much of a reservation is paid upfront: ``none`` (default), ``partial`` or ``all``; a
    reserved price is costed at that option's effective rate where the catalog carries it."""

    def shown_currency(
        self, asked: str | None = None, *, budget_usd: float | None = None, budget_cny: float | None = None
    ) -> str:
        """The currency money under these constraints is shown in: ``asked`` (``--currency``, a
        request's ``currency``) where given; else CNY where the budget is in yuan — ``budget_cny``
        given beside them, or their own ``budget_cny`` unless a ``budget_usd`` given replaces it — so
        that a team counting in yuan reads its figures in yuan; else CNY where no budget is given
        and the work may run in mainland China only (:attr:`mainland_china_only`), whose clouds
        price in yuan: their own figures, not a conversion at the catalog's rate; else USD."""
        if asked is not None:
            return asked
        yuan = budget_cny is not None or (budget_usd is None and self.budget_cny is not None)
        unbudgeted = all(b is None for b in (budget_usd, budget_cny, self.budget_usd, self.budget_cny))
        return "CNY" if yuan or (unbudgeted and self.mainland_china_only) else "USD"

    @property
    def mainland_china_only(self) -> bool:
        """The work may run in mainland China only: ``countries`` name CN and no other country (a
        name that is no known country counts as another), so its clouds price it in yuan."""
        from gpuplan.errors import NotFoundError
        from gpuplan.i18n.countries import country_codes

        codes: set[str] = set()
        for name in self.countries:
            try:
                codes.update(country_codes(name))
            except NotFoundError:
                return False
        return codes == {"CN"}

    @model_validator(mode="after")
    def _one_budget(self) -> ConstraintsSpec:
        if self.budget_usd is not None and self.budget_cny is not None:
            raise _refused(N_("give budget_usd or budget_cny, not both"))
        return self

    @model_validator(mode="after")
    def _floor_within_limit(self) -> ConstraintsSpec:
        if self.min_gpus is not None and self.max_gpus is not None and self.min_gpus > self.max_gpus:
            raise _refused(MIN_OVER_MAX_GPUS, min=self.min_gpus, max=self.max_gpus)
        return self

    @field_validator("regions", "countries", "compliance")
    @classmethod
    def _lower(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(s.strip().lower() for s in v)

    @field_validator("providers")
    @classmethod
    def _providers(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        # The provider codes are the catalog registry's (imported here: the catalog package opens
        # the database layer, which a workload that names no provider does not need).
        from gpuplan.catalog.providers import PROVIDERS

        cast = pydantic_cast(PROVIDERS)
        return tuple(cast(p) for p in v)

    @field_validator("gpus")
    @classmethod
    def _gpus(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        from gpuplan.hardware import gpus_named

        for name in v:
            try:
                gpus_named(name)
            except NotFoundError as e:
                # The error as the argument: its words stay translatable in the workload's one line.
                raise ValueError(e) from None
        return tuple(s.strip() for s in v)

    @field_validator("pricing")
    @classmethod
    def _pricing(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        cast = pydantic_cast(PricingModel)
        return tuple(cast(p).value for p in v)

    @field_validator("commitment")
    @classmethod
    def _commitment(cls, v: str | None) -> str | None:
        return None if v is None else pydantic_cast(Commitment)(v).value

    @field_validator("upfront")
    @classmethod
    def _upfront(cls, v: str | None) -> str | None:
        return None if v is None else pydantic_cast(Upfront)(v).value

    @field_validator("hosts")
    @classmethod
    def _hosts(cls, v: str | None) -> str | None:
        return None if v is None else pydantic_cast(HostRule)(v).value

    @field_validator("interconnect")
    @classmethod
    def _link(cls, v: str | None) -> str | None:
        return None if v is None else pydantic_cast(GpuLink)(v).value


class Workload(Spec):
    """A user's job: model, inputs, numerics, optimizer, parallelism, data and planner constraints."""

    name: str = Field(min_length=1, max_length=300)
    """What the user calls this job (shown in reports; not part of the profile cache key)."""

    @field_validator("name")
    @classmethod
    def _one_printable_line(cls, v: str) -> str:
        # The name heads terminals and reports: a control character (a newline, ESC's colour and
        # title sequences, a right-to-left override) would let a shared file write over them.
        return printable_line(v)

    task: TaskField = Task.TRAIN
    """``train`` (from scratch), ``finetune`` (same step; BERT gets its QA head) or ``infer``."""
    model: ModelSpec
    inputs: InputsSpec
    precision: PrecisionField = Precision.FP32
    """``fp32``, ``tf32``, ``amp-fp16``/``amp-bf16`` (fp32 weights, autocast), ``bf16`` (all-bf16
    weights and state) or ``fp8`` (fp8 matmuls on top of amp-bf16)."""
    optimizer: OptimizerField = OptimizerName.ADAMW
    """Ignored for ``task: infer``. ``adamw-8bit`` / ``paged-adamw-8bit`` are bitsandbytes' 8-bit
    AdamW (2 bytes of state per parameter; the paged one keeps it in memory that spills to host)."""
    optimizer_in_backward: bool = False
    """Step each parameter as soon as its gradient is complete and free the gradient (torchtune's
    ``optimizer_in_bwd``): no whole-model gradient is ever live. Needs ``gradient_accumulation: 1``."""
    loss: LossField = LossKind.STANDARD
    """Language models: ``standard`` (fp32 logits and log-probabilities), ``chunked`` (16-bit logits,
    fp32 one chunk at a time) or ``fused-linear`` (output projection and loss fused per chunk; the
    logits never exist whole)."""
    gradient_checkpointing: bool = False
    """The older spelling of ``activation_checkpointing: full``."""
    activation_checkpointing: CheckpointingField = ActivationCheckpointing.NONE
    """``none``, ``full`` (recompute each transformer block or ResNet stage in backward, keep only
    its input) or ``selective`` (keep matmul/attention outputs, recompute the ops between them);
    ``true`` is ``full`` and ``false`` ``none``, as ``gradient_checkpointing`` reads them."""
    attention: AttentionField = AttentionImpl.FUSED
    """``fused`` (SDPA flash / memory-efficient kernel), ``eager`` (score matrix materialised,
    softmax as separate kernels: HF ``attn_implementation="eager"``) or ``fused-softmax`` (score
    matrix materialised, one fused 16-bit scale + mask + softmax kernel: Megatron-LM 2021)."""
    compile: bool = False
    """Whether the job runs under ``torch.compile`` (a software level with its own time factor)."""
    cuda_graphs: bool | None = None
    """Whether steps replay captured CUDA graphs, so that the CPU does not issue each kernel. None:
    ``task: infer`` whose tokens a serving engine decodes (a service of a decoder LLM, a batch
    generation job) — yes, as serving engines (vLLM, SGLang, TensorRT-LLM) and
    ``torch.compile(mode="reduce-overhead")`` replay each decode step; any other ``task: infer`` (one
    forward pass of the traced step, as plain PyTorch runs it) — no; training — as the ``stack`` level
    sets it (stock: no, tuned: yes). ``false``: the CPU issues every kernel of every step (eager
    PyTorch, Hugging Face ``generate``), so a small step takes at least its kernel launches × the host
    time of one. ``true`` on a forward pass: the whole traced step is captured and replayed."""
    stack: StackSpec = Field(default_factory=StackSpec)
    """The software stack (``workload/stack.py``): memory format, input pipeline, fused kernels,
    dropout; ``stock`` (plain PyTorch) unless it says otherwise."""
    gradient_accumulation: int = Field(default=1, ge=1, le=100_000)
    parallelism: ParallelismField = Parallelism.DDP
    """How the data-parallel replicas share the job; the trace itself is always one GPU's step."""
    tensor_parallel: int = Field(default=1, ge=1, le=MAX_MODEL_PARALLEL)
    """Megatron-style tensor parallelism: each layer's matmuls split over this many GPUs of a node."""
    pipeline_parallel: int = Field(default=1, ge=1, le=MAX_MODEL_PARALLEL)
    """Pipeline stages (1F1B over the ``gradient_accumulation`` micro-batches of a step)."""
    pipeline_virtual_stages: int = Field(default=1, ge=1, le=MAX_MODEL_PARALLEL)
    """Model chunks per GPU of the interleaved pipeline schedule (1: plain 1F1B)."""
    sequence_parallel: bool = False
    """Split layer norms and dropouts along the sequence too (with ``tensor_parallel`` > 1)."""
    data: DataSpec | None = None
    checkpoint: CheckpointSpec | None = None
    """Training only: the checkpoint interval and how many are kept (``CheckpointSpec``)."""
    serving: ServingSpec | None = None
    """Only for ``task: infer``."""
    constraints: ConstraintsSpec = Field(default_factory=ConstraintsSpec)
    """What the planner may choose from and must meet."""

    @model_validator(mode="before")
    @classmethod
    def _level_optimizer(cls, data: Any) -> Any:
        # A level sets the optimizer's kernel when the workload names none: AdamW, PyTorch's
        # default foreach one at the stock level, the fused one at the tuned level.
        if isinstance(data, dict) and "optimizer" not in data and data.get("stack") is not None:
            try:
                level = StackSpec.model_validate(data["stack"]).level
            except ValidationError:
                return data  # the stack field reports it
            return {**data, "optimizer": level_optimizer(OptimizerName.ADAMW, level).value}
        return data

    @model_validator(mode="before")
    @classmethod
    def _checkpointing_switch(cls, data: Any) -> Any:
        # ``activation_checkpointing: true`` is the switch ``gradient_checkpointing: true`` is (full
        # recompute, as Hugging Face's gradient_checkpointing_enable does); false is none.
        if isinstance(data, dict) and isinstance(on := data.get("activation_checkpointing"), bool):
            mode = ActivationCheckpointing.FULL if on else ActivationCheckpointing.NONE
            return {**data, "activation_checkpointing": mode.value}
        return data

    @model_validator(mode="before")
    @classmethod
    def _fp16_to_serve(cls, data: Any) -> Any:
        # precision: fp16 of a model that is only served is fp16 weights (fp16-master's, whose
        # master copy is the optimizer's: serving has none); to train it names no one method, and
        # is refused with the four (Precision.hints).
        if not isinstance(data, dict) or (member := serving_precision(data.get("precision"))) is None:
            return data
        try:
            task = Task.cast(data.get("task", Task.TRAIN.value))
        except UnknownChoiceError:
            return data  # the task field reports it
        return {**data, "precision": member.value} if task is Task.INFER else data

    @model_validator(mode="after")
    def _consistent(self) -> Workload:
        if self.serving is not None and self.task is not Task.INFER:
            raise _refused(N_("serving: only applies to task: infer (remove it or set task: infer)"))
        if self.serving is not None:
            self._serving_request(self.serving)
        if self.serving is not None and self.data is not None and self.data.results_gb is not None:
            raise _refused(
                N_(
                    "data.results_gb: a service's responses go to its clients, not back to the data; "
                    "it applies to batch jobs (no serving block)"
                )
            )
        if self.model.lora is not None and self.model.lora.quantized and self.task is Task.INFER:
            raise _refused(
                N_(
                    "model.lora.quantization: for task: infer, drop lora and set precision: fp8 "
                    "(linear weights stored in 8 bits)"
                )
            )
        if self.model.lora is not None and self.model.lora.quantized and self.precision is Precision.FP8:
            raise _refused(
                N_(
                    "model.lora.quantization: a quantized base is dequantized to 16 bits for its matmuls, "
                    "not fp8; use precision: amp-bf16 or bf16"
                )
            )
        if self.model.lora is not None and self.task is Task.INFER:
            raise _refused(
                N_("model.lora: adapters only matter for training; use task: finetune or drop lora")
            )
        if self.checkpoint is not None and self.task is Task.INFER:
            raise _refused(
                N_("checkpoint: an inference job writes no checkpoint; it applies to train and finetune")
            )
        if self.gradient_checkpointing and self.task is Task.INFER:
            raise _refused(N_("gradient_checkpointing: has no effect for task: infer; remove it"))
        if self.gradient_checkpointing and self.activation_checkpointing not in (
            ActivationCheckpointing.NONE,
            ActivationCheckpointing.FULL,
        ):
            raise _refused(
                N_("gradient_checkpointing: true means activation_checkpointing: full; give only one of them")
            )
        if self.activation_checkpointing is not ActivationCheckpointing.NONE and self.task is Task.INFER:
            raise _refused(N_("activation_checkpointing: has no effect for task: infer; remove it"))
        if self.optimizer_in_backward and self.task is Task.INFER:
            raise _refused(N_("optimizer_in_backward: has no effect for task: infer; remove it"))
        if self.optimizer_in_backward and self.gradient_accumulation > 1:
            raise _refused(
                N_(
                    "optimizer_in_backward: steps during backward, so it cannot accumulate gradients; "
                    "use gradient_accumulation: 1 or drop optimizer_in_backward"
                )
            )
        if self.optimizer_in_backward and self.precision.fp32_main_grads:
            raise _refused(
                N_(
                    "optimizer_in_backward: frees each gradient as it steps, but bf16-master keeps "
                    "them in a persistent fp32 buffer; use one or the other"
                )
            )
        if self.loss is not LossKind.STANDARD and self.task is Task.INFER:
            raise _refused(N_("loss: has no effect for task: infer; remove it"))
        generates = self.inputs.output_tokens is not None
        if generates and (self.task is not Task.INFER or self.serving is not None):
            raise _refused(
                N_(
                    "inputs.output_tokens: the answer length of a batch generation job (task: infer "
                    "without serving:); a service gives serving.output_tokens, training has none"
                )
            )
        if self.inputs.denoising_steps is not None and self.task is not Task.INFER:
            raise _refused(
                N_(
                    "inputs.denoising_steps: the sampling steps of image generation (task: infer); "
                    "a training step is one denoiser call, leave it out"
                )
            )
        if self.inputs.output_tokens is not None and not self.inputs.seq_len:
            raise _refused(N_("inputs.output_tokens: needs inputs.seq_len, the prompt's tokens"))
        if self.task is Task.INFER and self.pipeline_parallel > 1:
            raise _refused(
                N_(
                    "pipeline_parallel: modelled for training only; for task: infer use tensor_parallel "
                    "(or one replica per GPU)"
                )
            )
        if self.attention is AttentionImpl.FUSED_SOFTMAX and self.model.hf_config is not None:
            raise _refused(
                N_(
                    "attention: fused-softmax is Megatron-LM's kernel, modelled for the presets; "
                    "for model.hf_config use fused or eager"
                )
            )
        if self.sequence_parallel and self.tensor_parallel == 1:
            raise _refused(N_("sequence_parallel: needs tensor_parallel of 2 or more (or remove it)"))
        spans = self.tensor_parallel * self.pipeline_parallel
        if self.serving is not None and self.serving.replicas_per_gpu > 1 and spans > 1:
            # Every command reads the workload: estimate, simulate and deploy had taken the pair
            # that plan alone refused (a time-slicing ConfigMap beside a 2-GPU tensor-parallel pod).
            raise _refused(
                N_(
                    "serving.share_gpu: replicas time-share one GPU each, but one replica of this workload "
                    "spans {n} GPUs (tensor_parallel × pipeline_parallel); leave share_gpu out"
                ),
                n=spans,
            )
        if self.pipeline_virtual_stages > 1 and self.pipeline_parallel == 1:
            raise _refused(N_("pipeline_virtual_stages: needs pipeline_parallel of 2 or more (or remove it)"))
        self._check_inputs()
        return self

    def _serving_request(self, sv: ServingSpec) -> None:
        """A service's request is a language model's (prompt and answer tokens) or one image
        (``inputs.denoising_steps``), never neither nor both."""
        tokens = sv.prompt_tokens is not None or sv.output_tokens is not None
        if self.inputs.denoising_steps is not None:
            if tokens or sv.prompt_tokens_p95 is not None or sv.output_tokens_p95 is not None:
                raise _refused(
                    N_(
                        "serving.prompt_tokens, output_tokens: an image service's request is one image "
                        "(inputs.denoising_steps); leave the tokens out"
                    )
                )
            if sv.tpot_p95_ms is not None or sv.ttft_p95_ms is not None or sv.engine is not None:
                raise _refused(
                    N_(
                        "serving.tpot_p95_ms, ttft_p95_ms, engine: a language model's serving; an image "
                        "service (inputs.denoising_steps) has p95_latency_ms, the whole image"
                    )
                )
            return
        tails = sv.prompt_tokens_p95 is not None or sv.output_tokens_p95 is not None
        if not tokens and not tails and not self._generates_text:
            # one forward pass a request: a classifier's, an embedding's, a segmentation's
            if sv.tpot_p95_ms is not None or sv.ttft_p95_ms is not None or sv.engine is not None:
                raise _refused(
                    N_(
                        "serving.tpot_p95_ms, ttft_p95_ms, engine: a language model's serving; a service "
                        "whose request is one forward pass has p95_latency_ms, the whole request"
                    )
                )
            return
        missing = [k for k in ("prompt_tokens", "output_tokens") if getattr(sv, k) is None]
        if missing:
            raise _refused(
                N_(
                    "serving.{keys}: required for a language model's service; a service that generates "
                    "images gives inputs.denoising_steps (and guidance) instead"
                ),
                keys=listed(missing),
            )

    @property
    def _generates_text(self) -> bool:
        """Whether the model is known to generate tokens (a decoder or encoder-decoder preset, an HF
        config of a text model whose architectures generate or are not named), so that a service of
        it needs its request's tokens. A vision model, an encoder, or the user's own code (known
        only once traced) is served a forward pass a request without them."""
        if self.model.preset is not None:
            info = get_preset(self.model.preset)
            return info.modality == "text" and info.family in ("decoder", "encoder-decoder")
        if self.model.hf_config is not None:
            raw = _hf_raw(self.model.hf_config_path)
            if _hf_takes_images(raw) or takes_audio(raw):
                return False  # a speech model's service is refused with its reason (_check_inputs)
            named = [a for a in raw.get("architectures") or [] if isinstance(a, str)]
            return not named or any(a.endswith(_GENERATING_ARCHITECTURES) for a in named)
        return False

    @property
    def denoiser_calls(self) -> int | None:
        """Denoiser calls one generated image takes (``inputs.denoiser_calls``); None for every
        workload that does not generate images with a denoiser (``task: infer`` only)."""
        return self.inputs.denoiser_calls if self.task is Task.INFER else None

    @property
    def serves_images(self) -> bool:
        """A service whose request is one image made by a denoiser (``inputs.denoising_steps``)."""
        return self.serving is not None and self.inputs.denoising_steps is not None

    @property
    def serves_forward_passes(self) -> bool:
        """A service whose request is one forward pass of the traced model on one sample (a
        classifier's, an embedding's, a segmentation's): no tokens, no denoising steps."""
        return (
            self.serving is not None
            and self.inputs.denoising_steps is None
            and self.serving.prompt_tokens is None
            and self.serving.output_tokens is None
        )

    @property
    def serves_traced_calls(self) -> bool:
        """A service whose request is a fixed count of calls of the traced step, batched by the
        server up to ``inputs.batch_size``, with no tokens and no KV cache: an image's denoiser
        calls (:attr:`serves_images`) or one forward pass (:attr:`serves_forward_passes`)."""
        return self.serves_images or self.serves_forward_passes

    def shown_currency(
        self, asked: str | None = None, *, budget_usd: float | None = None, budget_cny: float | None = None
    ) -> str:
        """The currency a command or a request shows this workload's money in
        (:meth:`ConstraintsSpec.shown_currency` of its constraints). The one rule of plan, estimate,
        simulate and the service's requests."""
        return self.constraints.shown_currency(asked, budget_usd=budget_usd, budget_cny=budget_cny)

    @property
    def replicas_per_gpu(self) -> int:
        """A service's replicas time-sharing each GPU (``serving.share_gpu``; 1 without a serving
        block). Refused beside tensor or pipeline parallelism when the workload is read, so every
        reader takes it as is."""
        return self.serving.replicas_per_gpu if self.serving is not None else 1

    @property
    def tensor_parallel_stated(self) -> bool:
        """Whether the workload gives ``tensor_parallel`` (1 included); a service that does not is
        planned at the degree each option needs (``plan.estimator``)."""
        return "tensor_parallel" in self.model_fields_set

    @property
    def generated_tokens(self) -> int | None:
        """Tokens each sample of a batch generation job generates (``inputs.output_tokens``, read
        only for ``task: infer`` without ``serving:``); None for every other workload."""
        return self.inputs.output_tokens

    @property
    def uses_cuda_graphs(self) -> bool:
        """Whether steps replay CUDA graphs: ``cuda_graphs`` when given, else yes for inference a
        serving engine decodes (:attr:`engine_decodes`), no for any other inference (plain PyTorch
        runs a forward pass eagerly) and the stack level's choice for training."""
        if self.cuda_graphs is not None:
            return self.cuda_graphs
        if self.task is Task.INFER:
            return self.engine_decodes
        return LEVELS[self.stack.level].cuda_graphs

    @property
    def engine_decodes(self) -> bool:
        """Whether a serving engine generates this workload's tokens step by step: a service of a
        decoder LLM (``serving:`` with tokens) or a batch generation job (``inputs.output_tokens``)."""
        if self.task is not Task.INFER:
            return False
        served_tokens = self.serving is not None and not self.serves_traced_calls
        return self.generated_tokens is not None or served_tokens

    @property
    def software_stack(self) -> Stack:
        """The whole software stack this workload runs on (level defaults filled in)."""
        return self.stack.settled(
            optimizer=self.optimizer, compile=self.compile, cuda_graphs=self.uses_cuda_graphs
        )

    def at_level(self, level: StackLevel) -> Workload:
        """This workload on the ``level`` stack (for comparison): its memory format, input
        pipeline, fused kernels, AdamW kernel and training CUDA graphs, eager (no ``torch.compile``).
        The model, its dropout, the data and the parallelism (its tensor-parallel plan too) stay,
        but for a preset's vocabulary the tuned level pads as its scripts do (to a multiple of 8;
        a model read from an HF config or code keeps its own)."""
        model = self.model
        if model.preset is not None and model.pad_vocab_multiple is None:
            pad = level_pad_vocab_multiple(level, get_preset(model.preset).arch.vocab)
            if pad is not None:
                model = model.model_copy(update={"pad_vocab_multiple": pad})
        stack = StackSpec(
            level=level,
            dropout=self.stack.dropout,
            # the workers of a DataLoader, on a level that reads with one
            loader_workers=self.stack.loader_workers if level_reads_with_a_dataloader(level) else None,
            tensor_parallel_plan=self.stack.tensor_parallel_plan,
        )
        return self.model_copy(
            update={
                "model": model,
                "stack": stack,
                "optimizer": level_optimizer(self.optimizer, level),
                "compile": False,
                "cuda_graphs": self.cuda_graphs if self.task is Task.INFER else None,
            }
        )

    @property
    def checkpointing(self) -> ActivationCheckpointing:
        """The activation checkpointing mode, whichever spelling the spec used."""
        if self.gradient_checkpointing:
            return ActivationCheckpointing.FULL
        return self.activation_checkpointing

    def _check_inputs(self) -> None:
        inp = self.inputs
        if inp.masked_tokens is not None and not (
            self.task is Task.TRAIN
            and self.model.preset is not None
            and get_preset(self.model.preset).family == "encoder"
        ):
            raise _refused(
                N_("inputs.masked_tokens: applies to masked-LM pre-training of a BERT preset (task: train)")
            )
        if self.model.preset is not None:
            info = get_preset(self.model.preset)
            if info.modality == "image":
                if inp.seq_len is not None or inp.target_len is not None:
                    raise _refused(
                        N_("inputs: {model} takes images; give image_size, not seq_len"), model=info.name
                    )
                if inp.image_size is None:
                    raise _refused(
                        N_("inputs.image_size: required for {model} (e.g. image_size: 224)"), model=info.name
                    )
                if info.family == "vit" and inp.image_size % 16:
                    raise _refused(
                        N_("inputs.image_size: must be a multiple of 16 for {model} (got {size})"),
                        model=info.name,
                        size=inp.image_size,
                    )
                return
            if inp.image_size is not None:
                raise _refused(
                    N_("inputs: {model} takes tokens; give seq_len, not image_size"), model=info.name
                )
            source: str | Phrase = info.name
            limit = info.max_seq_len
            generates = info.family == "decoder"
            encoder_decoder = info.family == "encoder-decoder"
        elif self.model.hf_config is not None:
            raw = _hf_raw(self.model.hf_config_path)
            model = str(raw.get("model_type") or self.model.hf_config)[:80]
            if takes_audio(raw):
                check_audio_inputs(raw, inp, serving=self.serving is not None)
                return
            if _hf_takes_images(raw):
                if inp.seq_len is not None or inp.target_len is not None:
                    raise _refused(
                        N_("inputs: {model} takes images; give image_size, not seq_len"), model=model
                    )
                if inp.image_size is None:
                    side = raw.get("image_size")
                    raise _refused(
                        N_(
                            "inputs.image_size: required for {model} (its config.json has image_size: {size})"
                        ),
                        model=model,
                        size=side if isinstance(side, int) else 224,
                    )
                return
            if inp.image_size is not None:
                raise _refused(N_("inputs: {model} takes tokens; give seq_len, not image_size"), model=model)
            limit, source = hf_max_positions(raw), Phrase(N_("its config.json"))
            named = [a for a in raw.get("architectures") or [] if isinstance(a, str)]
            generates = not named or any(a.endswith("ForCausalLM") for a in named)
            # T5's, BART's config.json name their decoder's first token; a decoder LLM's never does
            encoder_decoder = raw.get("is_encoder_decoder") is True or "decoder_start_token_id" in raw
        else:
            return  # user code: checked when traced
        if inp.seq_len is None and inp.image_size is None:
            raise _refused(N_("inputs.seq_len: required for a text model (e.g. seq_len: 1024)"))
        for field_name in ("seq_len", "target_len"):
            n = getattr(inp, field_name)
            if limit is not None and n is not None and n > limit:
                raise _refused(
                    N_(
                        "inputs.{field}: {n} is longer than the model allows ({limit} positions in "
                        "{source}); use {field}: {limit} or less"
                    ),
                    field=field_name,
                    n=n,
                    limit=limit,
                    source=source,
                )
        answer = inp.output_tokens
        if answer is not None and encoder_decoder:
            raise ValueError(encoder_decoder_generation(source))
        if answer is not None and not generates:
            raise _refused(
                N_(
                    "inputs.output_tokens: only a decoder LLM generates tokens after its prompt, and {model} "
                    "is not one; leave output_tokens out"
                ),
                model=source,
            )
        if (
            answer is not None
            and limit is not None
            and inp.seq_len is not None
            and inp.seq_len + answer > limit
        ):
            raise _refused(
                N_(
                    "inputs.output_tokens: a prompt of {prompt} and an answer of {answer} tokens make "
                    "{total}, longer than the model allows ({limit} positions in {source}); shorten "
                    "seq_len or output_tokens"
                ),
                prompt=inp.seq_len,
                answer=answer,
                total=inp.seq_len + answer,
                limit=limit,
                source=source,
            )

    # ---- construction -------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "") -> Workload:
        """Validate ``data`` (as parsed from YAML/JSON). Raises WorkloadError (one line) or NotFoundError."""
        if not isinstance(data, dict):
            raise WorkloadError.worded(
                N_("{source}: expected a mapping of fields (got {type})"),
                source=source or Phrase(N_("workload")),
                type=type(data).__name__,
            )
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            raise one_line_error(e, source) from None

    @classmethod
    def from_yaml(cls, path: str | Path, *, project: str | Path | None = None) -> Workload:
        """Read a workload file; ``model.hf_config`` and ``model.python`` resolve from its folder.

        ``project``: the folder the user named (``--project DIR``); without it, the file's own folder.
        The files the workload names must lie inside it (:func:`gpuplan.workload.paths.confine_model`).
        """
        return cls.read(path, Folder.of(path, project))

    @classmethod
    def read(cls, path: str | Path, folder: Folder) -> Workload:
        """Like :meth:`from_yaml`, the files it names checked against ``folder``."""
        p = Path(path)
        text = read_text(p, what="workload file", max_bytes=MAX_DOCUMENT_BYTES, error=WorkloadError)
        data = load_yaml(text, source=str(p), error=WorkloadError)
        if data is None:
            raise WorkloadError.worded(
                N_("{path} holds no workload (empty or comments only); write name, task, model, inputs"),
                path=p,
            )
        if not isinstance(data, dict):
            raise WorkloadError.worded(
                N_("{path}: expected a mapping of workload fields (got {type})"),
                path=p,
                type=type(data).__name__,
            )
        refuse_foreign_file(data, str(p), WorkloadError)
        _refuse_document(data, p)
        _refuse_usage_file(data, p)
        _refuse_bare_deadline(data, p)
        # Relative paths in a file mean relative to that file, wherever it is run from.
        return cls.from_dict(confine_model(data, file=p, folder=folder), source=str(p))

    def with_copy_gbps(self, gbps: float | None) -> Workload:
        """This workload with ``data.copy_gbps`` set to ``gbps`` (``plan --copy-gbps``, a plan
        request's ``copy_gbps``), so that the plan, its document and what is deployed from it use one
        rate; unchanged where ``gbps`` is None or the workload has no data section (nothing to copy).
        A rate outside 0.001 to 1,000 GB/s is refused in one line."""
        if gbps is None or self.data is None:
            return self
        if not MIN_STORAGE_GBPS <= gbps <= MAX_STORAGE_GBPS:
            raise WorkloadError.worded(
                N_("--copy-gbps must be from {least:g} to {most:,g} GB/s (got {value:g})"),
                least=MIN_STORAGE_GBPS,
                most=MAX_STORAGE_GBPS,
                value=gbps,
            )
        return self.model_copy(update={"data": self.data.model_copy(update={"copy_gbps": gbps})})

    def placed(
        self,
        *,
        providers: Sequence[str] | None = None,
        regions: Sequence[str] | None = None,
        countries: Sequence[str] | None = None,
    ) -> Workload:
        """This workload with ``constraints.providers``, ``regions`` and ``countries`` replaced by
        those given (None: the workload's own), as ``gpuplan estimate --providers/--regions/
        --countries`` give them for the prices its advice quotes. An unknown provider or country is
        refused in one line with the nearest names."""
        from gpuplan.catalog.providers import PROVIDERS
        from gpuplan.i18n.countries import country_codes

        update: dict[str, tuple[str, ...]] = {}
        if providers is not None:
            update["providers"] = tuple(PROVIDERS.cast(p) for p in providers)
        if regions is not None:
            update["regions"] = tuple(r.strip().lower() for r in regions)
        if countries is not None:
            for c in countries:
                country_codes(c)  # refused here, with the nearest names, not as an empty filter later
            update["countries"] = tuple(c.strip().lower() for c in countries)
        if not update:
            return self
        return self.model_copy(update={"constraints": self.constraints.model_copy(update=update)})

    def to_dict(self) -> dict[str, Any]:
        """Plain data that ``from_dict`` reads back into an equal Workload (durations in hours)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

    # ---- derived --------------------------------------------------------------------------------

    @property
    def is_training(self) -> bool:
        return self.task is not Task.INFER

    def ignored_settings(self) -> tuple[str, ...]:
        """Settings the user wrote that have no effect on this workload, one line each (for a warning)."""
        given = self.model_fields_set
        out: list[str] = []
        if self.task is Task.INFER:
            for field_name in ("optimizer", "gradient_accumulation"):
                if field_name in given:
                    out.append(f"{field_name}: ignored for task: infer")
        if self.model.lora is not None and self.model.lora.alpha is not None:
            out.append("model.lora.alpha: scales the update only; it changes no cost estimate")
        return tuple(out)

    def global_batch_size(self, num_gpus: int) -> int:
        """Samples per optimizer step: per-GPU batch × GPUs × gradient accumulation."""
        return self.inputs.batch_size * num_gpus * self.gradient_accumulation


def _hf_raw(path: Path | None) -> dict[str, Any]:
    """The HF config.json as read (empty without a path)."""
    if path is None:
        return {}
    try:
        # Read here, when the workload is: a config that asks for code is refused before anything
        # is imported.
        return read_hf_config(path)
    except WorkloadError as e:
        raise ValueError(e) from None


def _hf_takes_images(cfg: dict[str, Any]) -> bool:
    """Whether a HF config describes a vision model, which takes pixel values: its top level gives
    an image or patch size (ViT, DeiT, BEiT, Swin, ConvNeXt); a language model's never does (a
    multimodal one nests its vision tower's in ``vision_config``)."""
    return "image_size" in cfg or "patch_size" in cfg


def hf_max_positions(cfg: dict[str, Any]) -> int | None:
    """The sequence limit written in a HF config.json, or None if it states none (T5's relative bias)."""
    for key in _HF_MAX_POSITION_KEYS:
        if isinstance(cfg.get(key), int):
            return int(cfg[key])
    return None


def utilization_percent(value: float) -> float:
    """A GPU utilisation target in percent, as DCGM reports it: one of 1 or less is a fraction
    written for a percent (0.8 for 80 %; no one scales out at 1 % busy), refused with the percent
    it likely means."""
    if 0 < value <= 1:
        raise _refused(
            N_("{value:g} is a percent here ({value:g} % GPU utilisation); did you mean {percent:g}?"),
            value=value,
            percent=value * 100,
        )
    return value


def _refused(template: str, /, **fields: object) -> ValueError:
    """A validator's refusal, its words kept as a Phrase so that the line reads in the user's language."""
    return ValueError(Phrase(template, **fields))


def _refuse_document(data: dict[str, Any], path: Path) -> None:
    """A JSON document gpuplan wrote (it has a ``schema_version``, which no workload has) given where a
    workload goes: said for what it is, rather than as a workload with an unknown key. A plan is
    what ``gpuplan deploy`` reads."""
    if "schema_version" not in data:
        return
    if "recommended" in data and "workload" in data:
        raise WorkloadError.worded(
            N_(
                "{path} is a plan (gpuplan plan --json's output), not a workload: deploy it with "
                "`gpuplan deploy {path}`, or give the workload file it was planned from"
            ),
            path=path,
        )
    raise WorkloadError.worded(
        N_("{path} is a JSON document gpuplan wrote (it has a schema_version), not a workload file"),
        path=path,
    )


def _refuse_usage_file(data: dict[str, Any], path: Path) -> None:
    """A ``gpuplan tco`` usage file (``horizon_months``, ``demands``, no ``model``) given where a
    workload goes: said for what it is, as tco says of a workload given to it, rather than as a
    workload with the unknown key ``horizon_months``."""
    if "model" in data or not ({"horizon_months", "demands"} & set(data)):
        return
    raise WorkloadError.worded(
        N_(
            "{path} is a tco usage file (it has horizon_months and demands), not a workload: run "
            "`gpuplan tco {path}`; plan, estimate and deploy take a workload file (name, task, model, "
            "inputs), such as one its demands name"
        ),
        path=path,
    )


def _refuse_bare_deadline(data: dict[str, Any], path: Path) -> None:
    """A deadline the user wrote as a bare number (``deadline: 14``) is refused, as ``--deadline 14``
    is: 14 hours, days and minutes differ by 24× or 60×, and a deadline read the wrong way plans the
    wrong job. Plain data (a plan's workload, written by :meth:`Workload.to_dict`) keeps numbers as
    hours."""
    constraints = data.get("constraints")
    value = constraints.get("deadline") if isinstance(constraints, dict) else None
    # a number out of any range (10**400, .inf) is the schema's to refuse, in its own words
    bare = (
        isinstance(value, int | float) and not isinstance(value, bool) and 0 < abs(value) <= MAX_HOURS
    ) or (isinstance(value, str) and re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", value))
    if bare:
        n = f"{value:g}" if isinstance(value, int | float) else str(value).strip()
        raise WorkloadError.worded(
            N_(
                "{path}: constraints.deadline {value} has no unit: write {n}h (hours), {n}d (days) or "
                "{n}m (minutes)"
            ),
            path=path,
            value=n,
            n=n,
        )


def load_workload(
    source: str | Path | dict[str, Any] | Workload, *, project: str | Path | None = None
) -> Workload:
    """A Workload from a YAML path, a mapping, or a Workload (returned as is).

    ``project``: for a path, the folder the files it names must lie in (``--project DIR``); the
    file's own folder by default."""
    if isinstance(source, Workload):
        return source
    if isinstance(source, dict):
        return Workload.from_dict(source)
    return Workload.from_yaml(source, project=project)
