"""What an AWS usage type meters. AWS names the meter of every usage line in its usage type:
`line_item_usage_type` in the Cost and Usage Report (legacy `lineItem/UsageType`), `x_UsageType`
in the FOCUS 1.0 export and `SkuMeter` in FOCUS 1.2
(https://docs.aws.amazon.com/cur/latest/userguide/table-dictionary-focus-1-2-migrating.html).

* `USE1-BoxUsage:p5.48xlarge` (and Spot, Dedicated, Host, UnusedBox): an EC2 instance-hour.
* `USE1-Cluster:ml.p5.48xlarge`: a SageMaker HyperPod node-hour, billed under AmazonSageMaker,
  not AmazonEC2; `USE1-Train:ml.p4d.24xlarge` a training job's instance-hour, and likewise
  `Host:` (endpoints), `Processing:`, `Notebk:`, `Studio:JupyterLab-ml.…`
  (https://aws.amazon.com/sagemaker/ai/pricing/; the HyperPod usage type:
  https://awslabs.github.io/ai-on-sagemaker-hyperpod/docs/slurm-orchestration/add-ons/slurm-chargeback/cost-allocation-from-cur).
* `USE1-DataTransfer-Out-Bytes`, `USE1-USW2-AWS-Out-Bytes`: data sent out, the bid's egress.
* `USE1-NatGateway-Hours`, `USE1-NatGateway-Bytes` (product family "NAT Gateway", also
  `RegionalNatGateway-…`): the gateway's hours and the data it processed
  (https://aws.amazon.com/vpc/pricing/). Both are network fees, never egress: traffic the
  gateway sends to the internet is billed again, as `DataTransfer-Out-Bytes`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.billing.meters import EGRESS, OTHER, PER_INSTANCE, Meter

_INSTANCE = re.compile(r"(?:BoxUsage|SpotUsage|DedicatedUsage|HostUsage|UnusedBox)(?::(.+))?$")
# The `ml.` instance after a SageMaker component's colon; not `Cluster:VolumeUsage.gp2`.
_ML = re.compile(r":(?:[A-Za-z]+-)?(ml\.[a-z0-9-]+\.[a-z0-9]+)$")


@lru_cache(maxsize=1024)  # a bill repeats a few usage types on every line
def usage_meter(*, usage_type: str, instance_type: str = "", timed: bool) -> Meter | None:
    """What the usage type says the line meters (`instance_type`: the product's own column,
    preferred for EC2); None when it names nothing this knows, and the profile's other columns
    decide."""
    if "NatGateway" in usage_type:
        return Meter(OTHER)
    if timed:
        box = _INSTANCE.search(usage_type)
        if box is not None:
            return Meter(PER_INSTANCE, instance_type or box.group(1) or "")
        ml = _ML.search(usage_type)
        if ml is not None:
            # The usage type's spelling: the product column may write `ml.p5.48xlarge-Cluster`.
            return Meter(PER_INSTANCE, ml.group(1))
    if "DataTransfer-Out" in usage_type or "-Out-Bytes" in usage_type:
        return Meter(EGRESS)
    return None
