"""GPUs per instance type, for bills that count instance-hours or VM-hours.

A cloud bills a p5.48xlarge by the instance-hour; the contract prices GPU-hours. The count comes
from here, from the name itself when it states it ("8x H100 SXM"), or from the user's answer;
never from a guess. Each entry cites the provider's page that states it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class InstanceType:
    name: str  # as the provider writes it
    gpus: int
    model: str


def _types(*rows: tuple[str, int, str]) -> dict[str, InstanceType]:
    return {key(name=name): InstanceType(name, gpus, model) for name, gpus, model in rows}


@lru_cache(maxsize=256)  # every line of a bill asks for the same few types
def key(*, name: str) -> str:
    """One spelling for the ways bills write a type: Azure's meter "ND96isr H100 v5" and its
    size "Standard_ND96isr_H100_v5", a spot or low-priority variant, any case. SageMaker's
    "ml.p5.48xlarge" (a HyperPod node's product type "ml.p5.48xlarge-Cluster") is the EC2 type
    of that name: the same GPUs (https://aws.amazon.com/sagemaker/ai/pricing/)."""
    return re.sub(r"[^a-z0-9]", "", _spelled(name))


def _spelled(name: str) -> str:
    """The type's name, lower case, without a spot or low-priority suffix, Azure's `Standard_`
    prefix or SageMaker's `ml.` (and a HyperPod node's `-Cluster`)."""
    text = re.sub(r"\s+(spot|low priority)$", "", name.strip().lower())
    text = re.sub(r"^standard[_ ]", "", text)
    return re.sub(r"^ml\.(.+?)(-cluster)?$", r"\1", text)


CATALOGUE: dict[str, InstanceType] = {
    # AWS: https://aws.amazon.com/ec2/instance-types/p5/
    **_types(
        ("p5.48xlarge", 8, "H100 80GB"),
        ("p5e.48xlarge", 8, "H200 141GB"),
        ("p5en.48xlarge", 8, "H200 141GB"),
    ),
    # AWS: https://aws.amazon.com/ec2/instance-types/p4/
    **_types(("p4d.24xlarge", 8, "A100 40GB"), ("p4de.24xlarge", 8, "A100 80GB")),
    # AWS: https://aws.amazon.com/ec2/instance-types/p6/
    **_types(("p6-b200.48xlarge", 8, "B200")),
    # Google Cloud: https://cloud.google.com/compute/docs/accelerator-optimized-machines
    **_types(
        ("a3-highgpu-1g", 1, "H100 80GB"),
        ("a3-highgpu-2g", 2, "H100 80GB"),
        ("a3-highgpu-4g", 4, "H100 80GB"),
        ("a3-highgpu-8g", 8, "H100 80GB"),
        ("a3-edgegpu-8g", 8, "H100 80GB"),
        ("a3-megagpu-8g", 8, "H100 80GB Mega"),
        ("a3-ultragpu-8g", 8, "H200 141GB"),
        ("a4-highgpu-8g", 8, "B200"),
        ("a2-highgpu-1g", 1, "A100 40GB"),
        ("a2-highgpu-2g", 2, "A100 40GB"),
        ("a2-highgpu-4g", 4, "A100 40GB"),
        ("a2-highgpu-8g", 8, "A100 40GB"),
        ("a2-megagpu-16g", 16, "A100 40GB"),
        ("a2-ultragpu-1g", 1, "A100 80GB"),
        ("a2-ultragpu-2g", 2, "A100 80GB"),
        ("a2-ultragpu-4g", 4, "A100 80GB"),
        ("a2-ultragpu-8g", 8, "A100 80GB"),
    ),
    # Azure: https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndh100v5-series
    **_types(("Standard_ND96isr_H100_v5", 8, "H100 80GB")),
    # Azure: https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/nd-h200-v5-series
    **_types(("Standard_ND96isr_H200_v5", 8, "H200 141GB")),
    # Azure: https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndasra100v4-series
    **_types(("Standard_ND96asr_v4", 8, "A100 40GB")),
    # Azure: https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ndma100v4-series
    **_types(("Standard_ND96amsr_A100_v4", 8, "A100 80GB")),
    # Oracle Cloud: https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm
    **_types(
        ("BM.GPU.H100.8", 8, "H100 80GB"),
        ("BM.GPU.H200.8", 8, "H200 141GB"),
        ("BM.GPU.A100-v2.8", 8, "A100 80GB"),
        ("BM.GPU4.8", 8, "A100 40GB"),
    ),
}

# Neoclouds name the count in the type: "8x H100 SXM" (an invoice), "gpu_8x_h100_sxm5" (Lambda's
# instance type names, https://docs.lambda.ai/public-cloud/on-demand/). The number is the
# provider's own statement, so reading it is not a guess.
_STATED = re.compile(
    r"(?:^|[^a-z0-9])(\d{1,2})\s*[x×]\s*[_ -]?((?:nvidia[_ -]?)?(?:gh|[hab]|l|mi)\d{2,3}[a-z]?)",
    re.IGNORECASE,
)


# Families that have no GPU, so their hours are fees without asking:
# - AWS's general purpose, compute, memory and storage optimised and HPC families
#   (https://aws.amazon.com/ec2/instance-types/: its GPUs are in the p and g families, its other
#   accelerators in dl, trn, inf, f and vt, none of them listed here);
# - Google Cloud's general purpose, compute, memory and storage optimised machine types
#   (https://cloud.google.com/compute/docs/machine-resource: the A and G series carry GPUs; GPUs
#   attached to an N1 VM bill on their own GPU SKU, so the VM's hours are still no GPU time);
# - Azure's B, D, E, F, L and M series and the HB/HC/HX HPC sizes
#   (https://learn.microsoft.com/azure/virtual-machines/sizes/overview: GPUs are the N series).
_NO_GPU = re.compile(
    r"(?:a1|[cdimrt]\d+|im4|is4|h1|x[128]|z1|hpc[67]|mac\d*)[a-z0-9-]*"
    r"\.(?:\d*x?large|medium|small|micro|nano|metal(?:-\d+xl)?)"
    r"|(?:e2|n[124]d?|c[234][ad]?|m[1-4]|t2[ad]|h[34]d?|z3)-[a-z]+(?:-\d+)?(?:-lssd)?"
    r"|(?:vm|bm)\.(?:standard|denseio|optimized|hpc)[a-z0-9.]*"
)
# Azure's sizes only with the `Standard_` prefix or a version suffix: a bare "L40S" or "B200"
# is a GPU's name, not an L- or B-series VM.
_AZURE_NO_GPU = re.compile(r"(?:b|dc?|ec?|fx?|l|m|h[bcx])\d+[a-z]*(?:_[a-z0-9]+)*")
_AZURE_SIZE = re.compile(r"^standard[_ ]|[_ ]v\d+(?:\s+(?:spot|low priority))?$")
NO_GPU = "no GPU"


def _no_gpu(name: str) -> bool:
    """Whether the type is of a family without GPUs, spelled as `key` takes it."""
    azure = _AZURE_SIZE.search(name.strip().lower()) is not None
    text = _spelled(name).replace(" ", "_")
    return _NO_GPU.fullmatch(text) is not None or (
        azure and _AZURE_NO_GPU.fullmatch(text) is not None
    )


def lookup(*, name: str, extra: dict[str, int] | None = None) -> InstanceType | None:
    """The instance type's GPUs: the user's answers (`extra`, type → GPUs) first, then the
    catalogue, then a count the name states, then a family known to have none. None: unknown,
    and the caller must ask."""
    if not name.strip():
        return None
    for answered, gpus in (extra or {}).items():
        if key(name=answered) == key(name=name):
            return InstanceType(name, gpus, "as answered")
    known = CATALOGUE.get(key(name=name))
    if known is not None:
        return known
    stated = _STATED.search(name)
    if stated:
        return InstanceType(name, int(stated.group(1)), stated.group(2).upper())
    if _no_gpu(name):
        return InstanceType(name, 0, NO_GPU)
    return None
