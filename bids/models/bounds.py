"""Plausible limits for the counts a request or a bid states, one place for model, form and API.

Upper bounds catch typing slips (1,000,000 spare nodes), not ambition: the largest training
clusters announced by 2026 are in the low hundreds of thousands of GPUs, so 32,768 nodes and
262,144 GPUs leave room. NVLink domains reach 576 GPUs (NVL576); a node carries at most 72 GPUs
(an NVL72 rack scheduled as one node), 32 backend NICs, and links of at most 1.6 Tb/s."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator

MAX_NODES = 32_768


def at_most(limit: int, what: str) -> MaxValueValidator:
    """The upper bound with its message in the domain's words ("At most 262,144 GPUs."), on the
    page and the API alike, never the database's range ("… 9223372036854775807")."""
    return MaxValueValidator(limit, message=f"At most {limit:,} {what}.")


def at_least(limit: int, what: str = "") -> MinValueValidator:
    """The lower bound in the same words ("At least 1 GPU."; a bound of 0: "Cannot be
    negative."), never Django's "Ensure this value is greater than or equal to 1." """
    message = f"At least {limit:,} {what}." if limit else "Cannot be negative."
    return MinValueValidator(limit, message=message)


NODES = [at_least(1, "node"), at_most(MAX_NODES, "nodes")]
GPUS = [at_least(1, "GPU"), at_most(MAX_NODES * 8, "GPUs")]
GPUS_PER_NODE = [at_least(1, "GPU per node"), at_most(72, "GPUs per node (an NVL72 rack)")]
NVLINK_DOMAIN = [
    at_least(1, "GPU in one NVLink domain"),
    at_most(576, "GPUs in one NVLink domain (NVL576)"),
]
NICS_PER_NODE = [at_most(32, "backend NICs per node")]
LINK_GBPS = [at_most(1_600, "Gb/s (1.6 Tb/s)")]
SWITCHES = [at_least(1, "leaf switch"), at_most(4_096, "leaf switches")]
SPARES = [at_most(1_024, "spare nodes")]
MTBF_HOURS = [at_least(1, "hour"), at_most(1_000_000, "hours")]
# The service envelope: a start or a reclaim notice past 30 days, a health check rarer than weekly
# or a token slower than a minute is a typing slip, not an offer.
ENVELOPE_MINUTES = [at_least(0), at_most(30 * 24 * 60, "minutes (30 days)")]
HEALTH_CHECK_MINUTES = [at_least(1, "minute"), at_most(7 * 24 * 60, "minutes (a week)")]
LATENCY_MS = [at_least(0), at_most(60_000, "ms (a minute)")]
CONCURRENCY = [at_least(1, "concurrent request"), at_most(1_000_000, "concurrent requests")]
TOKENS_PER_S = [at_least(1, "token per second"), at_most(100_000_000, "tokens per second")]
# A checkpoint less often than weekly is no checkpoint policy for a multi-node job.
CHECKPOINT_INTERVAL_MINUTES = [at_least(1, "minute"), at_most(7 * 24 * 60, "minutes (a week)")]
# Writing a checkpoint or restarting from one for longer than a day, or a planned run past ten
# years, is a typing slip: the cost model would read it as the whole run lost.
CHECKPOINT_WRITE_SECONDS = [at_least(1, "second"), at_most(24 * 60 * 60, "seconds (a day)")]
RESTART_SECONDS = [at_least(1, "second"), at_most(24 * 60 * 60, "seconds (a day)")]
RUN_LENGTH_HOURS = [at_least(1, "hour"), at_most(10 * 8_760, "hours (ten years)")]
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
