"""Enumerations shared by requests, bids and scoring (the scoring package keeps plain strings)."""

from django.db import models


class GpuModel(models.TextChoices):
    H100 = "H100", "NVIDIA H100 80GB SXM"
    H200 = "H200", "NVIDIA H200 141GB SXM"
    B200 = "B200", "NVIDIA B200"
    GH200 = "GH200", "NVIDIA GH200"
    A100 = "A100", "NVIDIA A100 80GB SXM"
    L40S = "L40S", "NVIDIA L40S"


class Fabric(models.TextChoices):
    INFINIBAND = "infiniband", "InfiniBand"
    ROCE = "roce", "RoCE v2 Ethernet"
    ETHERNET = "ethernet", "Ethernet (TCP)"
    OTHER = "other", "Other"


class IsolationClass(models.TextChoices):
    WHOLE_DEVICE = "whole_device", "Whole device"
    MIG = "mig", "MIG partition"
    TIME_SLICED = "time_sliced", "Time-sliced"


class PlacementClass(models.TextChoices):
    """Where a job of the fixture's size is promised to land (seed 003: placement is part of
    what is bought, not only the GPU count)."""

    NVLINK_DOMAIN = "nvlink_domain", "Inside one NVLink domain"
    SAME_LEAF = "same_leaf", "Under one leaf / rail group (non-blocking)"
    SAME_FABRIC = "same_fabric", "One fabric, across the spine"
    ANYWHERE = "anywhere", "Anywhere in the fleet (no placement promise)"


class ReclaimEffect(models.TextChoices):
    """What happens to the buyer's running job when capacity is reclaimed from it."""

    CHECKPOINT_REQUEUE = "checkpoint_requeue", "Signalled to checkpoint, then requeued"
    REQUEUE = "requeue", "Stopped and requeued"
    KILLED = "killed", "Stopped, not requeued"
    SUSPENDED = "suspended", "Suspended, resumed in place"


class Scheduler(models.TextChoices):
    SLURM = "slurm", "Slurm"
    KUBERNETES = "kubernetes", "Kubernetes"


class Region(models.TextChoices):
    EU = "eu", "European Union"
    UK = "uk", "United Kingdom"
    NORDICS = "nordics", "Nordics"
    US_EAST = "us-east", "US East"
    US_WEST = "us-west", "US West"
    CANADA = "canada", "Canada"
    APAC = "apac", "Asia-Pacific"
    MIDDLE_EAST = "middle-east", "Middle East"


class SparesLocation(models.TextChoices):
    NONE = "none", "No spares"
    SAME_FABRIC_DOMAIN = "same_fabric_domain", "Same fabric domain (hot spare)"
    SAME_SITE = "same_site", "Same site, other fabric domain"
    REMOTE = "remote", "Another site"


class Coverage(models.TextChoices):
    ALWAYS = "24x7", "24 × 7"
    EXTENDED = "extended", "Extended hours (e.g. 7–22, 7 days)"
    BUSINESS_HOURS = "business_hours", "Business hours"


class SiteReadiness(models.TextChoices):
    LIVE = "live", "Live, capacity in service"
    RACKED = "racked", "Racked, burn-in pending"
    UNDER_CONSTRUCTION = "under_construction", "Under construction"


class RequestStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    OPEN = "open", "Open for bids"
    CLOSED = "closed", "Closed"
    AWARDED = "awarded", "Awarded"
    CANCELLED = "cancelled", "Cancelled"


class BidStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    SUBMITTED = "submitted", "Submitted"
    WITHDRAWN = "withdrawn", "Withdrawn"
    AWARDED = "awarded", "Awarded"
    LOST = "lost", "Not awarded"
