"""Offer kinds by isolation: a whole device, a MIG instance, or a time-sliced replica.

A buyer compares them on one scale, the whole-device equivalent: the share of one GPU's
compute a unit of the offer is. A MIG instance of profile `Ng.<mem>gb` holds N of the GPU's
seven compute slices (NVIDIA's MIG user guide, "Supported MIG Profiles"); a time-sliced replica
is one of the `replicas` the NVIDIA device plugin advertises per GPU
(`sharing.timeSlicing.resources[].replicas`), with no memory or fault isolation between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

WHOLE_DEVICE, MIG, TIME_SLICED = "whole_device", "mig", "time_sliced"
OFFER_KINDS = (WHOLE_DEVICE, MIG, TIME_SLICED)
KIND_NAMES = {WHOLE_DEVICE: "whole device", MIG: "MIG", TIME_SLICED: "time-sliced"}
# What isolates the buyer's work from a neighbour's on the same GPU, in words.
ISOLATION_NOTES = {
    WHOLE_DEVICE: "the GPU is the buyer's alone",
    MIG: "memory, cache and compute slices isolated in hardware",
    TIME_SLICED: "no isolation guarantee: replicas share memory and faults",
}
MIG_COMPUTE_SLICES = 7
# Replicas per GPU beyond this are a typing slip rather than an offer.
MAX_TIME_SLICE_REPLICAS = 64

# The MIG profiles per GPU model, from NVIDIA's MIG user guide (media-extension variants left
# out: they take the same compute slices). L40S has no MIG.
MIG_PROFILES: dict[str, tuple[str, ...]] = {
    "A100": ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "H100": ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"),
    "GH200": ("1g.12gb", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb"),
    "H200": ("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"),
    "B200": ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"),
}
_PROFILE = re.compile(r"^([1-7])g\.(\d{1,4})gb$")


class OfferKindError(ValueError):
    """An offer kind's specifics are missing or contradict each other; `field` names which."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class MigProfile:
    name: str
    compute_slices: int
    memory_gb: int

    @property
    def fraction(self) -> Fraction:
        return Fraction(self.compute_slices, MIG_COMPUTE_SLICES)


def mig_profile(name: str, *, gpu_model: str | None = None) -> MigProfile:
    """The profile `name` (e.g. "3g.40gb"); with `gpu_model`, only one that model offers."""
    match = _PROFILE.match(name.strip().lower())
    if match is None:
        raise OfferKindError("mig_profile", f"{name!r} is not a MIG profile name like 3g.40gb.")
    if gpu_model is not None:
        offered = MIG_PROFILES.get(gpu_model)
        if offered is None:
            raise OfferKindError("mig_profile", f"{gpu_model} GPUs cannot be partitioned by MIG.")
        if match.group(0) not in offered:
            raise OfferKindError(
                "mig_profile",
                f"{gpu_model} GPUs offer the MIG profiles {', '.join(offered)}, not {name}.",
            )
    return MigProfile(match.group(0), int(match.group(1)), int(match.group(2)))


def device_fraction(*, kind: str, profile: str = "", replicas: int | None = None) -> Fraction:
    """The share of one GPU a unit of the offer is: 1, N/7 for a MIG `Ng` profile, 1/replicas."""
    if kind == WHOLE_DEVICE:
        return Fraction(1)
    if kind == MIG:
        if not profile:
            raise OfferKindError("mig_profile", "A MIG offer names its MIG profile.")
        return mig_profile(profile).fraction
    if kind == TIME_SLICED:
        if replicas is None or not 2 <= replicas <= MAX_TIME_SLICE_REPLICAS:
            raise OfferKindError(
                "time_slice_replicas",
                f"A time-sliced offer gives its replicas per GPU, 2 to {MAX_TIME_SLICE_REPLICAS}.",
            )
        return Fraction(1, replicas)
    raise OfferKindError("isolation_class", f"{kind!r} is not one of {', '.join(OFFER_KINDS)}.")


def refusal(
    *, accepted: tuple[str, ...], min_profile: str, kind: str, profile: str = ""
) -> str | None:
    """Why a request that accepts `accepted` (and MIG profiles from `min_profile` up) refuses an
    offer of `kind`; None when it accepts it."""
    if kind not in accepted:
        names = " or ".join(KIND_NAMES.get(k, k) for k in accepted) or "no offer kind"
        return f"offers {KIND_NAMES.get(kind, kind)} GPUs; the request accepts {names}"
    if kind == MIG and min_profile and profile:
        smallest, offered = mig_profile(min_profile), mig_profile(profile)
        if (offered.compute_slices, offered.memory_gb) < (
            smallest.compute_slices,
            smallest.memory_gb,
        ):
            return f"offers MIG {profile}, smaller than the smallest accepted profile {min_profile}"
    return None


def describe(*, kind: str, profile: str = "", replicas: int | None = None) -> str:
    """The offer kind in words, with its share of a device: "MIG 3g.40gb (3/7 of a GPU)"."""
    if kind == MIG and profile:
        return f"MIG {profile} ({device_fraction(kind=kind, profile=profile)} of a GPU)"
    if kind == TIME_SLICED and replicas:
        return f"Time-sliced, {replicas} replicas per GPU (1/{replicas} of a GPU, not isolated)"
    return KIND_NAMES.get(kind, kind).capitalize()
