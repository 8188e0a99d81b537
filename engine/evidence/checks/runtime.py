"""The runtime the fixture's output shows — CUDA and the container image — against the one the
fixture agrees. A value the fixture leaves empty is reported as "not agreed" with what ran; a
value the output does not carry is said to be unknown. Neither is ever skipped in silence."""

from __future__ import annotations

from typing import Any

from engine.evidence.checks.model import EvidenceItem, Status
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.fixture_result import FixtureRecord


def version_parts(text: str) -> tuple[int, ...] | None:
    parts = text.strip().lstrip("vV").split(".")
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        return None


def same_version(agreed: str, seen: str) -> bool:
    """At the precision agreed: "12.4" is met by 12.4 and 12.4.1; "12.4.1" only by 12.4.1."""
    want, got = version_parts(agreed), version_parts(seen)
    if want is None or got is None:
        return agreed.strip() == seen.strip()
    return got[: len(want)] == want


def image_digest(image: str) -> str | None:
    return image.split("@", 1)[1] if "@" in image else None


def fixture_runtime_checks(
    spec: Spec, records: list[tuple[EvidenceItem, FixtureRecord]], add: Any, item: EvidenceItem
) -> None:
    gpu = [r for _, r in records if not r.on_cpu]
    if not gpu:
        return  # a CPU dry run has neither; the device check already fails it
    _cuda(spec, gpu, add, item)
    _image(spec, gpu, add, item)


def _cuda(spec: Spec, records: list[FixtureRecord], add: Any, item: EvidenceItem) -> None:
    seen = sorted({r.cuda_version for r in records if r.cuda_version})
    shown = ", ".join(seen) or "not printed"
    if not spec.cuda_version:
        ran = f"it ran with CUDA {shown}" if seen else "its output does not print one"
        add(
            "CUDA version",
            "warn",
            shown,
            "not agreed",
            f"The fixture agrees no CUDA version; {ran}. Agree one in the fixture's runtime to "
            "check it.",
            item,
        )
        return
    if not seen:
        status, message = "inconclusive", "The fixture output does not show its CUDA version."
    else:
        ok = all(same_version(spec.cuda_version, v) for v in seen)
        status = "pass" if ok else "fail"
        message = f"The fixture ran with CUDA {shown}; {spec.cuda_version} agreed."
    add("CUDA version", status, shown, spec.cuda_version, message, item)


def _image(spec: Spec, records: list[FixtureRecord], add: Any, item: EvidenceItem) -> None:
    images = sorted({r.container_image for r in records if r.container_image})
    shown = ", ".join(images) or "not carried by the output"
    if not spec.container_image:
        if images:
            add(
                "container image",
                "warn",
                shown,
                "not agreed",
                f"The fixture agrees no container image; it ran in {shown}.",
                item,
            )
        return
    if not images:
        add(
            "container image",
            "warn",
            shown,
            spec.container_image,
            "The fixture output does not name its container image (a 'container_image' key on "
            "each line), so its digest could not be compared with the agreed one.",
            item,
        )
        return
    want = image_digest(spec.container_image)
    digests = {image_digest(i) for i in images}
    ok = digests == {want} if want else images == [spec.container_image]
    add(
        "container image",
        "pass" if ok else "fail",
        shown,
        spec.container_image,
        "The fixture ran in the agreed image (same digest)."
        if ok
        else f"The fixture ran in {shown}; the agreed image is {spec.container_image}.",
        item,
    )


def driver_cuda_check(
    spec: Spec, driver_cuda: str | None, where: str
) -> tuple[Status, str, str] | None:
    """nvidia-smi's "CUDA Version" is the newest CUDA the driver runs: below the agreed runtime
    CUDA, the agreed container cannot start its kernels. None when no CUDA is agreed."""
    if not spec.cuda_version:
        return None
    want = version_parts(spec.cuda_version)
    got = version_parts(driver_cuda) if driver_cuda else None
    if want is None or got is None:
        return (
            "warn",
            driver_cuda or "not shown",
            (f"The output from {where} does not show which CUDA its driver supports."),
        )
    if got[:2] >= want[:2]:
        return (
            "pass",
            driver_cuda or "",
            (f"The driver on {where} runs CUDA up to {driver_cuda}; {spec.cuda_version} agreed."),
        )
    return (
        "fail",
        driver_cuda or "",
        (
            f"The driver on {where} runs CUDA up to {driver_cuda}, older than the agreed "
            f"{spec.cuda_version}: the agreed runtime cannot run on it."
        ),
    )
