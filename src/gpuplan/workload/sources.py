"""From a workload's ``model`` section to a ModelBundle: preset, HF config or user code."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from gpuplan.workload.bundle import ModelBundle
from gpuplan.workload.presets.registry import get_preset
from gpuplan.workload.shape import padded_vocab
from gpuplan.workload.spec import Workload

__all__ = ["open_bundle"]


@contextmanager
def open_bundle(workload: Workload) -> Iterator[ModelBundle]:
    """Build the workload's model with its inputs and loss; call under the tracer's fake mode.

    For user code, the user's project stays importable until the context exits (their forward may
    import lazily), then ``sys.path`` and ``sys.modules`` are restored.
    """
    spec = workload.model
    if spec.preset is not None:
        info = get_preset(spec.preset)
        if spec.pad_vocab_multiple is not None:
            vocab = padded_vocab(info.arch.vocab, spec.pad_vocab_multiple)
            info = replace(info, arch=replace(info.arch, vocab=vocab))
        yield info.loader().build(info, workload)
    elif spec.hf_config is not None:
        from gpuplan.workload.hf import hf_bundle

        yield hf_bundle(workload)
    else:
        from gpuplan.workload.user_code import build_user_bundle, user_project

        with user_project(spec.base_dir):
            yield build_user_bundle(workload)
