"""Trace a workload on fake tensors into a Profile (FLOPs, bytes, memory by category).

Importing this package does not import torch; ``trace`` and ``profile`` do, when called.
"""

from gpuplan.profile.key import (
    MemoryProfileCache,
    ProfileCache,
    measurement_key,
    profile,
    profile_key,
    recording_key,
    trace,
)
from gpuplan.profile.model import PROFILE_SCHEMA_VERSION, MemoryBreakdown, ModelShape, OpRecord, Profile

__all__ = [
    "PROFILE_SCHEMA_VERSION",
    "MemoryBreakdown",
    "MemoryProfileCache",
    "ModelShape",
    "OpRecord",
    "Profile",
    "ProfileCache",
    "measurement_key",
    "profile",
    "profile_key",
    "recording_key",
    "trace",
]
