"""NVIDIA data-centre GPUs by PCI device id, as `dcgmi diag` prints them ("GPU Device IDs
Detected | 2335,2335"). Names follow the PCI ID repository (pci-ids.ucw.cz, vendor 10de), cut to
what a contract names: the model token first ("H200 SXM 141GB" matches a contract's "H200").

Pure data: no Django. An id not listed here is reported as unknown, never guessed.
"""

from __future__ import annotations

GPU_MODELS: dict[str, str] = {
    # Ampere
    "20b0": "A100 SXM4 40GB",
    "20b1": "A100 PCIe 40GB",
    "20b2": "A100 SXM4 80GB",
    "20b3": "A100 SXM 64GB",
    "20b5": "A100 PCIe 80GB",
    "20f1": "A100 PCIe 40GB",
    "20f3": "A800 SXM4 80GB",
    "20b7": "A30",
    "2236": "A10",
    "2237": "A10G",
    # Ada
    "26b5": "L40",
    "26b9": "L40S",
    "27b8": "L4",
    # Hopper
    "2321": "H100L 94GB",
    "2322": "H800 PCIe",
    "2324": "H800",
    "2329": "H20",
    "2330": "H100 SXM5 80GB",
    "2331": "H100 PCIe",
    "2335": "H200 SXM 141GB",
    "2336": "H100",
    "2339": "H100 SXM5 94GB",
    "233a": "H800L 94GB",
    "233b": "H200 NVL",
    "233d": "H100 96GB",
    "2342": "GH200",
    "2348": "GH200 144GB HBM3e",
    # Blackwell
    "2901": "B200",
}


def gpu_model(device_id: str) -> str | None:
    """'2335' or '0x2335' → 'H200 SXM 141GB'; None for an id not listed."""
    key = device_id.strip().lower().removeprefix("0x")
    return GPU_MODELS.get(key)


def model_token(name: str) -> str:
    """The model as a contract names it: 'H200 SXM 141GB' → 'H200'."""
    return name.split()[0] if name.split() else name
