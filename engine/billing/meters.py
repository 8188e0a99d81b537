"""What a usage line meters, as a profile reads it from the bill's columns: GPU time already
counted per GPU, an instance's time (× the type's GPUs), data sent out (egress), or something
else (a fee line, visible, never GPU usage).

Egress is what the bid's egress allowance prices: data that leaves the provider's region, to
the internet or to another region (or continent). Data moved inside the region, between its
zones or through a gateway, and data coming in, are network fees: the provider charges them,
but they are no data leaving the cluster, so the fees allowance covers them. `network_meter`
applies that rule to the words clouds and neoclouds name their network meters with; AWS's
usage types follow the same rule in `aws.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PER_GPU = "per-gpu"  # GPU-hours (or minutes, seconds): already × GPUs
PER_INSTANCE = "per-instance"  # instance-hours or VM-hours: × the type's GPUs
EGRESS = "egress"
OTHER = "other"  # storage, CPU cores, support, a gateway's hours: a fee line, not GPU usage


@dataclass(frozen=True)
class Meter:
    kind: str  # PER_GPU, PER_INSTANCE, EGRESS or OTHER
    instance_type: str = ""


# A network meter, in the words clouds and invoices use for one.
_NETWORK = re.compile(
    r"egress|ingress|data ?transfer|bandwidth|internet|outbound|inbound|nat ?gateway|"
    r"inter[- ]?region|inter[- ]?continent",
    re.I,
)
# Inside the region: Google's "Network Inter Zone Data Transfer Out" (formerly "… Egress") and
# "Network Intra Zone …", Azure's "Standard Inter-Availability Zone Data Transfer Out" and a
# VNet peering's "Intra-Region Egress", AWS's "regional data transfer" description; inbound
# data ("Data Transfer In", "Ingress"); a NAT gateway's hours or processed bytes. Any other
# network meter sends data out of the region: Google's "Network Internet Data Transfer Out
# from Americas to EMEA" and "Network Inter Region Data Transfer Out …", Azure's "Standard
# Data Transfer Out", "Inter Continent Data Transfer Out" and "Inter-Region Egress", OCI's
# "Outbound Data Transfer".
_WITHIN = re.compile(
    r"inter[- ]?(availability[- ]?)?zone|intra[- ]?(zone|region)|\bregional\b|"
    r"data ?transfer ?in\b|\bingress\b|\binbound\b|nat ?gateway",
    re.I,
)


def network_meter(text: str) -> str | None:
    """EGRESS or OTHER (a network fee) when the words name a network meter, else None."""
    if not _NETWORK.search(text):
        return None
    return OTHER if _WITHIN.search(text) else EGRESS
