"""Plausible limits for the counts a request or a bid states, one place for model, form and API.

Upper bounds catch typing slips (1,000,000 spare nodes), not ambition: the largest training
clusters announced by 2026 are in the low hundreds of thousands of GPUs, so 32,768 nodes and
262,144 GPUs leave room. NVLink domains reach 576 GPUs (NVL576); a node carries at most 72 GPUs
(an NVL72 rack scheduled as one node), 32 backend NICs, and links of at most 1.6 Tb/s."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator

MAX_NODES = 32_768

NODES = [MinValueValidator(1), MaxValueValidator(MAX_NODES)]
GPUS = [MinValueValidator(1), MaxValueValidator(MAX_NODES * 8)]
GPUS_PER_NODE = [MinValueValidator(1), MaxValueValidator(72)]
NVLINK_DOMAIN = [MinValueValidator(1), MaxValueValidator(576)]
NICS_PER_NODE = [MaxValueValidator(32)]
LINK_GBPS = [MaxValueValidator(1_600)]
SWITCHES = [MinValueValidator(1), MaxValueValidator(4_096)]
SPARES = [MaxValueValidator(1_024)]
MTBF_HOURS = [MinValueValidator(1), MaxValueValidator(1_000_000)]
# The service envelope: a start or a reclaim notice past 30 days, a health check rarer than weekly
# or a token slower than a minute is a typing slip, not an offer.
ENVELOPE_MINUTES = [MinValueValidator(0), MaxValueValidator(30 * 24 * 60)]
HEALTH_CHECK_MINUTES = [MinValueValidator(1), MaxValueValidator(7 * 24 * 60)]
LATENCY_MS = [MinValueValidator(0), MaxValueValidator(60_000)]
CONCURRENCY = [MinValueValidator(1), MaxValueValidator(1_000_000)]
TOKENS_PER_S = [MinValueValidator(1), MaxValueValidator(100_000_000)]
# A checkpoint less often than weekly is no checkpoint policy for a multi-node job.
CHECKPOINT_INTERVAL_MINUTES = [MinValueValidator(1), MaxValueValidator(7 * 24 * 60)]
# The NVIDIA device plugin takes any count; past 64 replicas per GPU a slice is no offer.
REPLICAS_TOO_FEW = (
    "A time-sliced offer shares each GPU between 2 and 64 replicas; one replica is the whole "
    "GPU: offer a whole device instead."
)
REPLICAS_TOO_MANY = "A time-sliced offer shares each GPU between 2 and 64 replicas, not more."
TIME_SLICE_REPLICAS = [
    MinValueValidator(2, message=REPLICAS_TOO_FEW),
    MaxValueValidator(64, message=REPLICAS_TOO_MANY),
]
