from django.db import models


class PayloadFormat(models.TextChoices):
    GENERIC = "generic", "Clusterbid JSON (signed, versioned)"
    SLACK = "slack", "Slack incoming webhook"
    PAGERDUTY = "pagerduty", "PagerDuty Events API v2"


class DeliveryState(models.TextChoices):
    PENDING = "pending", "Waiting"
    SENDING = "sending", "Sending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed"
