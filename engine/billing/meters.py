"""What a usage line meters, as a profile reads it from the bill's columns: GPU time already
counted per GPU, an instance's time (× the type's GPUs), data sent out (egress), or something
else (a fee line, visible, never GPU usage)."""

from __future__ import annotations

from dataclasses import dataclass

PER_GPU = "per-gpu"  # GPU-hours (or minutes, seconds): already × GPUs
PER_INSTANCE = "per-instance"  # instance-hours or VM-hours: × the type's GPUs
EGRESS = "egress"
OTHER = "other"  # storage, CPU cores, support, a gateway's hours: a fee line, not GPU usage


@dataclass(frozen=True)
class Meter:
    kind: str  # PER_GPU, PER_INSTANCE, EGRESS or OTHER
    instance_type: str = ""
