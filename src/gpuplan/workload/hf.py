"""Models from a Hugging Face ``config.json`` (``model: {hf_config: path}``), built without weights.

Only local paths are passed to transformers, so nothing is downloaded, and no code from the config's
folder or the Hub ever runs: a config with an ``auto_map`` is refused before transformers is
imported, every transformers call gets ``trust_remote_code=False`` (left unset, transformers prompts
on stdin), and only transformers' own model classes are built. The model class is the first of
``config.architectures`` when transformers knows it, else the auto class for the config
(causal LM, seq2seq LM, image classification for an image workload, or the base model).
Attention uses PyTorch SDPA where transformers has an SDPA path for the model, eager otherwise.

Under the tracer the model is built on the meta device, outside its fake mode, and its tensors then
become the fake mode's (``workload/meta.py``, as for a user's ``build()``): weights have no values to
initialise (under a fake mode ``trunc_normal_`` asks for a data-dependent ``.item()``, as ViT's does),
and what a constructor reads as numbers (the drop-path rates of Swin and ConvNeXt, from a
``torch.linspace`` on the CPU) is computed for real.
"""

from __future__ import annotations

import inspect
import threading
from pathlib import Path
from typing import Any

from gpuplan.errors import EstimateError, Phrase, WorkloadError, closest
from gpuplan.i18n.messages import N_
from gpuplan.i18n.phrases import either, listed
from gpuplan.vocab import AttentionImpl
from gpuplan.workload.audio import FRAME_S, mel_window
from gpuplan.workload.bundle import Batch, ModelBundle
from gpuplan.workload.hf_config import read_hf_config
from gpuplan.workload.meta import build_on_meta
from gpuplan.workload.shape import ModelShape, padded_vocab
from gpuplan.workload.spec import Workload

__all__ = ["build_model", "hf_bundle", "hf_bundle_for", "hf_config"]

_INSTALL = N_("model.hf_config needs transformers: pip install 'gpuplan[hf]'")


#: Held while transformers is imported and while its lazy attributes resolve (a config read, a model
#: built): its lazy module is not safe to resolve from two threads at once — the service's first
#: requests, in parallel, got "module 'transformers' has no attribute 'AutoConfig'".
_TRANSFORMERS = threading.RLock()


def _transformers() -> Any:
    with _TRANSFORMERS:
        try:
            import transformers
        except ImportError as e:
            raise EstimateError.worded(_INSTALL) from e
        return transformers


def hf_config(workload: Workload, shown: str | None = None) -> Any:
    """The transformers config of ``workload.model.hf_config``, checked: readable as a config of a
    model type transformers knows, with the size keys that type needs. No model is built (the
    service checks a workload it saves with this). ``shown`` names the file in messages."""
    path = workload.model.hf_config_path
    assert path is not None
    file = path / "config.json" if path.is_dir() else path
    # Within bounds (transformers would open it without them), and refused if it asks for code,
    # before transformers is imported; read_hf_config did this already when the workload was read.
    raw = read_hf_config(path)
    with _TRANSFORMERS:
        tf = _transformers()
        _check_model_type(tf, raw, shown or path)
        try:
            config = tf.AutoConfig.from_pretrained(str(file), local_files_only=True, trust_remote_code=False)
        except Exception as e:  # transformers' validators raise their own types (TypeError, AttributeError)
            # its first line, and the next where the first only introduces it ("Class validation
            # error for validator 'validate_architecture':" and then the reason)
            lines = [line.strip() for line in str(e).splitlines() if line.strip()] or [""]
            said = " ".join(lines[:2]) if lines[0].endswith(":") else lines[0]
            first = said.replace(str(file), shown or str(file))
            raise WorkloadError.worded(
                N_("model.hf_config: cannot read {path} as a Hugging Face config: {why}"),
                path=shown or path,
                why=first,
            ).about(
                "model.hf_config", Phrase(N_("cannot be read as a Hugging Face config: {why}"), why=first)
            ) from e
    _check_size_keys(config, raw, Path(shown) if shown else file)
    return config


#: Model types named, by example, when an unknown one has no near spelling.
_COMMON_TYPES = ("llama", "mistral", "qwen2", "gemma", "gpt2", "bert", "t5", "vit")


def _check_model_type(tf: Any, raw: dict[str, Any], shown: object) -> None:
    """One line naming a ``model_type`` transformers does not know, with the near spellings it does
    know (transformers' own text speaks of a checkpoint and an out-of-date Transformers)."""
    model_type = raw.get("model_type")
    try:
        known = list(tf.models.auto.configuration_auto.CONFIG_MAPPING_NAMES)
    except AttributeError:  # a transformers laid out otherwise: its own error stands
        return
    if not isinstance(model_type, str) or model_type in known:
        return
    near = closest(model_type, known)
    if near:
        words = dict(model_type=model_type, version=tf.__version__, near=either(repr(n) for n in near))
        raise WorkloadError.worded(
            N_(
                "model.hf_config: {path}: model_type {model_type!r} is not a model type transformers "
                "{version} knows; did you mean {near}?"
            ),
            path=shown,
            **words,
        ).about(
            "model.hf_config",
            Phrase(
                N_(
                    "model_type {model_type!r} is not a model type transformers {version} knows; "
                    "did you mean {near}?"
                ),
                **words,
            ),
        )
    examples = dict(
        model_type=model_type,
        version=tf.__version__,
        n=len(known),
        examples=listed(t for t in _COMMON_TYPES if t in known),
    )
    raise WorkloadError.worded(
        N_(
            "model.hf_config: {path}: model_type {model_type!r} is not a model type transformers "
            "{version} knows ({n} are, such as {examples})"
        ),
        path=shown,
        **examples,
    ).about(
        "model.hf_config",
        Phrase(
            N_(
                "model_type {model_type!r} is not a model type transformers {version} knows ({n} are, "
                "such as {examples})"
            ),
            **examples,
        ),
    )


def hf_bundle(workload: Workload) -> ModelBundle:
    """Build the model described by ``workload.model.hf_config`` (call under the tracer's fake mode)."""
    tf = _transformers()
    config = hf_config(workload)
    if (pad := workload.model.pad_vocab_multiple) is not None:
        vocab = getattr(config, "vocab_size", None)
        if not vocab:
            raise WorkloadError.worded(
                N_("model.pad_vocab_multiple: {path} has no vocab_size to pad"),
                path=workload.model.hf_config_path,
            )
        config.vocab_size = padded_vocab(int(vocab), pad)
    if not workload.stack.dropout:
        # ``stack.dropout: false``: every dropout probability of the config (hidden_dropout_prob,
        # attention_dropout, resid_pdrop …) set to 0; as written otherwise.
        for key, value in config.to_dict().items():
            if ("dropout" in key or "pdrop" in key) and isinstance(value, float):
                setattr(config, key, 0.0)
    # eager: transformers' own math path (scores materialised); fused: PyTorch SDPA. Unset, transformers
    # takes SDPA where the model has it and eager where not (ConvNeXt has no attention; some models
    # have only the eager path): asking for "sdpa" outright would refuse those models.
    config._attn_implementation = "eager" if workload.attention is AttentionImpl.EAGER else None
    try:
        with _TRANSFORMERS:
            model = build_on_meta(
                lambda: build_model(tf, config, images=workload.inputs.image_size is not None)
            )
    except (ValueError, TypeError, AttributeError, RuntimeError, IndexError) as e:
        raise EstimateError.worded(
            N_("model.hf_config: transformers cannot build {model_type!r}: {why}"),
            model_type=config.model_type,
            why=e,
        ) from e
    return hf_bundle_for(model, workload)


def build_model(tf: Any, config: Any, *, images: bool = False) -> Any:
    """The model of ``config``: its first ``architectures`` entry that is a transformers model class,
    else the auto class for it (seq2seq, causal LM, image classification when ``images``, then the
    base model).

    ``trust_remote_code=False`` on every call: left unset, transformers asks on stdin whether to run
    a config's code. Only subclasses of ``PreTrainedModel`` are taken from ``architectures``, so a
    config cannot make gpuplan call any other function transformers exports."""
    for arch in getattr(config, "architectures", None) or ():
        cls = getattr(tf, arch, None) if isinstance(arch, str) and arch.isidentifier() else None
        if isinstance(cls, type) and issubclass(cls, tf.PreTrainedModel):
            return cls(config)
    if mel_window(config) is not None:
        return tf.AutoModelForSpeechSeq2Seq.from_config(config, trust_remote_code=False)
    if getattr(config, "is_encoder_decoder", False):
        return tf.AutoModelForSeq2SeqLM.from_config(config, trust_remote_code=False)
    head = tf.AutoModelForImageClassification if images else tf.AutoModelForCausalLM
    try:
        return head.from_config(config, trust_remote_code=False)
    except ValueError:
        return tf.AutoModel.from_config(config, trust_remote_code=False)


#: The keys that set a model's size, by role: the first name is transformers' standard attribute,
#: the others what some architectures call it (GPT-2 ``n_layer``, T5 ``d_model`` …).
_SIZE_KEYS = (
    ("hidden_size", "n_embd", "d_model", "dim"),
    ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    ("vocab_size",),
)


def _check_size_keys(config: Any, raw: dict[str, Any], file: Path) -> None:
    """Refuse a config that leaves a size key its architecture uses to transformers' defaults.

    Without it, ``{"model_type": "llama", "hidden_size": 1024}`` silently becomes a 32-layer,
    32,000-token model of the library's default shape, and every estimate is of the wrong model.
    ``raw`` is the file as read (once, within bounds).
    """
    aliases = getattr(config, "attribute_map", {}) or {}
    # The keys the config class reads from a file; a size it derives from others is not asked for.
    # A class that names none (only **kwargs) leaves every size key asked for.
    try:
        settable: set[str] | None = set(inspect.signature(type(config).__init__).parameters)
    except (TypeError, ValueError):
        settable = None
    if settable is not None and not settable - {"self", "args", "kwargs"}:
        settable = None
    for names in _SIZE_KEYS:
        standard = names[0]
        value = getattr(config, standard, None)
        if not isinstance(value, int) or isinstance(value, bool):
            continue  # this architecture has no such size (a vision model has no vocabulary)
        stored = aliases.get(standard, standard)
        if settable is not None and stored not in settable:
            continue  # derived from other keys, not read from the file (Swin's hidden_size, num_layers)
        if (
            standard == "num_hidden_layers"
            and isinstance(raw.get("depths"), list)
            and len(raw["depths"]) == value
        ):
            continue  # a backbone in stages: ConvNeXt's num_stages is the length of its depths
        accepted = {*names, stored}
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
            ).about(
                "model.hf_config",
                Phrase(
                    N_(
                        "no {key!r}, which {model_type} needs (transformers would silently use its "
                        "default, {default}); copy it from the model's own config.json"
                    ),
                    key=standard,
                    model_type=config.model_type,
                    default=value,
                ),
            )


def _first(cfg: Any, *names: str) -> int | None:
    for n in names:
        v = getattr(cfg, n, None)
        if isinstance(v, int):
            return v
    return None


def hf_bundle_for(model: Any, workload: Workload) -> ModelBundle:
    """Inputs, loss and shape for a transformers model: token ids (labels = ids), pixel values, or
    Whisper's log-mel windows with the transcript's tokens (``workload/audio.py``)."""
    import torch

    cfg = model.config
    window = _audio_window(model)
    b = workload.inputs.batch_size
    vocab = _first(cfg, "vocab_size")
    seq2seq = bool(getattr(cfg, "is_encoder_decoder", False))
    s = workload.inputs.seq_len
    t = workload.inputs.target_len or s
    image = workload.inputs.image_size
    arch = type(model).__name__
    takes = inspect.signature(model.forward).parameters
    takes_labels = "labels" in takes
    notes: list[str] = []
    # A ViT's learned positions are sized for the config's image_size; at another size transformers
    # interpolates them when asked (as one fine-tunes at a higher resolution), else it refuses.
    side = _side(cfg)
    interpolate = (
        image is not None and side is not None and image != side and "interpolate_pos_encoding" in takes
    )
    if interpolate:
        notes.append(f"hf_config: positions interpolated from {side}² to {image}² (interpolate_pos_encoding)")

    def make_batch() -> Batch:
        if window is not None:
            # one 30 s window a sample, in the weights' dtype once batch_as_run casts it; the
            # decoder's input is the labels shifted right, as Whisper's forward makes it
            ids = torch.randint(0, vocab or 1, (b, s or 1))
            audio = {"input_features": torch.randn(b, *window), "decoder_input_ids": ids}
            if takes_labels:
                audio["labels"] = torch.randint(0, vocab or 1, (b, s or 1))
            return Batch(args=(), kwargs=audio)
        if image is not None:
            chans = _first(cfg, "num_channels") or 3
            kw: dict[str, Any] = {"pixel_values": torch.randn(b, chans, image, image)}
            if takes_labels:
                kw["labels"] = torch.randint(0, max(getattr(cfg, "num_labels", 2), 1), (b,))
            if interpolate:
                kw["interpolate_pos_encoding"] = True
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

    if window is not None:
        notes.append(
            f"hf_config: {arch} takes input_features: {window[1] * FRAME_S:g} s audio windows of "
            f"{window[0]} mel bins × {window[1]} frames (Whisper's feature extractor: {FRAME_S * 1e3:g} ms "
            f"a frame); seq_len is the transcript's tokens, the decoder's labels"
        )
    attends = _has_attention(model)
    family = (
        "encoder-decoder"
        if seq2seq
        else "decoder"
        if arch.endswith(("CausalLM", "LMHeadModel"))
        else ("encoder" if image is None else "vit" if attends else "cnn")
    )
    used = getattr(cfg, "_attn_implementation", None) or "eager"
    if not attends:
        notes.append(
            f"hf_config: {arch} has no attention layers; the workload's attention setting has no effect"
        )
    elif workload.attention is not AttentionImpl.EAGER and used == "eager":
        notes.append(
            f"hf_config: transformers has no SDPA attention for {arch}; its eager attention is traced"
        )
    heads = _first(cfg, "num_attention_heads", "n_head", "num_heads")
    # A backbone in stages (Swin, ConvNeXt) counts its blocks in depths; num_hidden_layers is its stages.
    depths = getattr(cfg, "depths", None)
    stages = depths if isinstance(depths, list | tuple) and all(isinstance(d, int) for d in depths) else None
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
            num_layers=sum(stages) if stages else _first(cfg, "num_hidden_layers", "n_layer", "num_layers"),
            hidden_size=hidden,
            num_attention_heads=heads,
            num_kv_heads=_first(cfg, "num_key_value_heads", "num_kv_heads") or heads,
            head_dim=_first(cfg, "head_dim", "d_kv") or (hidden // heads if hidden and heads else None),
            vocab_size=vocab,
            max_seq_len=_image_tokens(model, cfg, image)
            if image is not None
            else _first(cfg, "max_target_positions")
            if window is not None
            else _first(cfg, "max_position_embeddings", "n_positions", "n_ctx"),
            largest_layer_params=max(per_block, embed) or None,
        ),
        seq_len=s,
        mel_window=window,
        checkpoint_blocks=tuple(layers_list),
        notes=(
            f"hf_config: {arch} built by transformers {_transformers().__version__}"
            + (f" with {'SDPA' if used == 'sdpa' else used} attention" if attends else ""),
            *notes,
        ),
    )


#: The main inputs ``hf_bundle_for`` builds (transformers' ``main_input_name``): token ids, images,
#: Whisper's log-mel windows.
_BUILT_INPUTS = ("input_ids", "pixel_values", "input_features")


def _audio_window(model: Any) -> tuple[int, int] | None:
    """Whisper's (mel bins, frames) of one sample; None for a model that takes token ids or images.
    A model whose main input is another (a waveform's ``input_values``, Speech2Text's filterbank
    features) is refused in one line: gpuplan does not build it."""
    window = mel_window(model.config)
    main = getattr(model, "main_input_name", "input_ids")
    if (window is None and main in _BUILT_INPUTS[:2]) or (window is not None and main == _BUILT_INPUTS[2]):
        return window
    raise WorkloadError.worded(
        N_(
            "model.hf_config: {arch} takes {name}, which gpuplan does not build; describe it as your "
            "own code (model.python, its make_inputs giving {name})"
        ),
        arch=type(model).__name__,
        name=main,
    )


def _side(cfg: Any) -> int | None:
    """The image side a vision config is sized for (``image_size: 224`` or ``[224, 224]``)."""
    size = getattr(cfg, "image_size", None)
    if isinstance(size, list | tuple) and size and all(isinstance(x, int) for x in size):
        return int(size[0]) if len(set(size)) == 1 else None
    return size if isinstance(size, int) and not isinstance(size, bool) else None


def _has_attention(model: Any) -> bool:
    """Whether transformers' model has attention layers: a module of a class named for it (every
    transformers attention class is, ``ViTSelfAttention``, ``SwinAttention``); ConvNeXt has none."""
    return any("Attention" in type(m).__name__ for m in model.modules())


def _image_tokens(model: Any, cfg: Any, image: int | None) -> int | None:
    """Tokens a vision transformer with learned positions (ViT, DeiT) runs at ``image``: the patches,
    (image / patch)², and the extra tokens its position table holds beyond the config's patches
    (ViT's class token, DeiT's class and distillation tokens). None where it has no such table
    (relative positions, windows, convolutions)."""
    patch, side = _first(cfg, "patch_size"), _side(cfg)
    if image is None or not patch or not side:
        return None
    table = [p for n, p in model.named_parameters() if n.endswith("position_embeddings") and p.dim() == 3]
    if len(table) != 1:
        return None
    extra = int(table[0].shape[1]) - (side // patch) ** 2
    return (image // patch) ** 2 + extra if extra >= 0 else None


def _block_names(model: Any) -> list[str]:
    from gpuplan.workload.adapt import repeated_blocks

    return list(repeated_blocks(model))
