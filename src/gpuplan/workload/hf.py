"""Models from a Hugging Face ``config.json`` (``model: {hf_config: path}``), built without weights.

Only local paths are passed to transformers, so nothing is downloaded. The model class is the first of
``config.architectures`` when transformers knows it, else the auto class for the config
(causal LM, seq2seq LM, or the base model). Attention uses PyTorch SDPA.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from gpuplan.bounded import MAX_CONFIG_BYTES, read_text
from gpuplan.errors import EstimateError, WorkloadError
from gpuplan.i18n.messages import N_
from gpuplan.vocab import AttentionImpl
from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.hf_size import MAX_LAYERS, layers_problem
from gpuplan.workload.shape import ModelShape
from gpuplan.workload.spec import Workload

__all__ = ["MAX_LAYERS", "hf_bundle", "hf_bundle_for"]

_INSTALL = N_("model.hf_config needs transformers: pip install 'gpuplan[hf]'")


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as e:
        raise EstimateError.worded(_INSTALL) from e
    return transformers


def hf_bundle(workload: Workload) -> ModelBundle:
    """Build the model described by ``workload.model.hf_config`` (call under the tracer's fake mode)."""
    path = workload.model.hf_config_path
    assert path is not None
    # A regular file of bounded size only (not /dev/zero, not a FIFO): checked here because
    # transformers would open it without either check.
    file = path / "config.json" if path.is_dir() else path
    text = read_text(file, what="model.hf_config", max_bytes=MAX_CONFIG_BYTES, error=WorkloadError)
    try:
        raw = json.loads(text)
    except ValueError:
        raw = None  # transformers says what is wrong with it, below
    _check_layers(raw, file)  # before transformers is imported or builds anything
    tf = _transformers()
    try:
        # trust_remote_code=False: a config whose auto_map names Python files in its folder must
        # not make transformers run (or offer to run) that code; it is refused instead.
        config = tf.AutoConfig.from_pretrained(str(path), local_files_only=True, trust_remote_code=False)
    except (OSError, ValueError, KeyError) as e:
        first = (str(e).strip().splitlines() or [""])[0]
        raise WorkloadError.worded(
            N_("model.hf_config: cannot read {path} as a Hugging Face config: {why}"), path=path, why=first
        ) from e
    _check_size_keys(config, path)
    # eager: transformers' own math path (scores materialised); fused: PyTorch SDPA.
    config._attn_implementation = "eager" if workload.attention is AttentionImpl.EAGER else "sdpa"
    cls = None
    for arch in getattr(config, "architectures", None) or ():
        cls = getattr(tf, arch, None)
        if cls is not None:
            break
    try:
        if cls is not None:
            model = cls(config)
        elif getattr(config, "is_encoder_decoder", False):
            model = tf.AutoModelForSeq2SeqLM.from_config(config)
        else:
            try:
                model = tf.AutoModelForCausalLM.from_config(config)
            except ValueError:
                model = tf.AutoModel.from_config(config)
    except (ValueError, TypeError, AttributeError, RuntimeError) as e:
        raise EstimateError.worded(
            N_("model.hf_config: transformers cannot build {model_type!r}: {why}"),
            model_type=config.model_type,
            why=e,
        ) from e
    return hf_bundle_for(model, workload)


#: The keys that set a model's size, by role: the first name is transformers' standard attribute,
#: the others what some architectures call it (GPT-2 ``n_layer``, T5 ``d_model`` …).
_SIZE_KEYS = (
    ("hidden_size", "n_embd", "d_model", "dim"),
    ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    ("vocab_size",),
)


def _check_size_keys(config: Any, path: Any) -> None:
    """Refuse a config that leaves a size key its architecture uses to transformers' defaults.

    Without it, ``{"model_type": "llama", "hidden_size": 1024}`` silently becomes a 32-layer,
    32,000-token model of the library's default shape, and every estimate is of the wrong model.
    """
    import json

    file = path / "config.json" if path.is_dir() else path
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # transformers read it; a file we cannot re-read is not this check's business
    if not isinstance(raw, dict):
        return
    aliases = getattr(config, "attribute_map", {}) or {}
    for names in _SIZE_KEYS:
        standard = names[0]
        value = getattr(config, standard, None)
        if not isinstance(value, int) or isinstance(value, bool):
            continue  # this architecture has no such size (a vision model has no vocabulary)
        accepted = {*names, aliases.get(standard, standard)}
        if not accepted & raw.keys():
            raise WorkloadError.worded(
                N_(
                    "model.hf_config: {file} has no {key!r}, which {model_type} needs (transformers "
                    "would silently use its default, {default}); copy it from the model's own config.json"
                ),
                file=file,
                key=standard,
                model_type=config.model_type,
                default=value,
            )


def _check_layers(raw: Any, file: Any) -> None:
    """Refuse a config of more than MAX_LAYERS layers (also checked when the workload is read)."""
    problem = layers_problem(raw, file)
    if problem is not None:
        raise WorkloadError.worded(N_("model.hf_config: {problem}"), problem=problem)


def _first(cfg: Any, *names: str) -> int | None:
    for n in names:
        v = getattr(cfg, n, None)
        if isinstance(v, int):
            return v
    return None


def hf_bundle_for(model: Any, workload: Workload) -> ModelBundle:
    """Inputs, loss and shape for a transformers model: token ids (labels = ids) or pixel values."""
    import torch

    cfg = model.config
    b = workload.inputs.batch_size
    vocab = _first(cfg, "vocab_size")
    seq2seq = bool(getattr(cfg, "is_encoder_decoder", False))
    s = workload.inputs.seq_len
    t = workload.inputs.target_len or s
    image = workload.inputs.image_size
    arch = type(model).__name__
    takes_labels = "labels" in inspect.signature(model.forward).parameters

    def make_batch() -> Batch:
        if image is not None:
            chans = _first(cfg, "num_channels") or 3
            kw: dict[str, Any] = {"pixel_values": torch.randn(b, chans, image, image)}
            if takes_labels:
                kw["labels"] = torch.randint(0, max(getattr(cfg, "num_labels", 2), 1), (b,))
            return Batch(args=(), kwargs=kw)
        if vocab is None or s is None:
            raise WorkloadError.worded(
                N_("inputs: {arch} needs seq_len (text) or image_size (vision)"), arch=arch
            )
        ids = torch.randint(0, vocab, (b, s))
        kw = {"input_ids": ids}
        if seq2seq:
            kw["decoder_input_ids"] = torch.randint(0, vocab, (b, t or s))
            if takes_labels:
                kw["labels"] = torch.randint(0, vocab, (b, t or s))
        elif takes_labels and arch.endswith(("ForCausalLM", "LMHeadModel", "ForMaskedLM")):
            kw["labels"] = ids
        return Batch(args=(), kwargs=kw)

    def loss(out: Any, batch: Batch) -> Any:
        value = getattr(out, "loss", None)
        if value is not None:
            return value
        first = out[0] if isinstance(out, tuple) else next(iter(out.values()))
        return first.float().mean()

    family = (
        "encoder-decoder"
        if seq2seq
        else "decoder"
        if arch.endswith(("CausalLM", "LMHeadModel"))
        else ("vit" if image is not None else "encoder")
    )
    heads = _first(cfg, "num_attention_heads", "n_head", "num_heads")
    hidden = _first(cfg, "hidden_size", "n_embd", "d_model")
    layers_list = _block_names(model)
    per_block = max(
        (sum(p.numel() for p in model.get_submodule(n).parameters()) for n in layers_list), default=0
    )
    embed = (vocab or 0) * (hidden or 0)
    return ModelBundle(
        model=model,
        make_batch=make_batch,
        loss=loss,
        shape=ModelShape(
            family=family,
            num_layers=_first(cfg, "num_hidden_layers", "n_layer", "num_layers"),
            hidden_size=hidden,
            num_attention_heads=heads,
            num_kv_heads=_first(cfg, "num_key_value_heads", "num_kv_heads") or heads,
            head_dim=_first(cfg, "head_dim", "d_kv") or (hidden // heads if hidden and heads else None),
            vocab_size=vocab,
            max_seq_len=_first(cfg, "max_position_embeddings", "n_positions", "n_ctx"),
            largest_layer_params=max(per_block, embed) or None,
        ),
        seq_len=s,
        checkpoint_blocks=tuple(layers_list),
        notes=(
            f"hf_config: {arch} built by transformers {_transformers().__version__} "
            f"with {'eager' if workload.attention is AttentionImpl.EAGER else 'SDPA'} attention",
        ),
    )


def _block_names(model: Any) -> list[str]:
    from gpuplan.workload.adapt import repeated_blocks

    return list(repeated_blocks(model))
