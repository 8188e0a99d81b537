from django.core.exceptions import ValidationError


class ServiceError(ValidationError):
    """A rule refused the action; the message is meant for the person who tried it."""
