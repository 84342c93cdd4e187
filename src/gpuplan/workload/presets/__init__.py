"""Preset models in plain torch. The catalogue (``registry``) is torch-free; builders are not."""

from gpuplan.workload.presets.registry import PRESETS, Arch, PresetInfo, get_preset

__all__ = ["PRESETS", "Arch", "PresetInfo", "get_preset"]
