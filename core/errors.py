from django.core.exceptions import ValidationError


class ServiceError(ValidationError):
    """A rule refused the action; the message is meant for the person who tried it."""


class TooBusy(ServiceError):
    """Refused for now, not for good: the organisation's share of the workers is in use. The
    API answers 429 with Retry-After; a page shows the message."""

    retry_after_seconds = 60
