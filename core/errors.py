from django.core.exceptions import NON_FIELD_ERRORS, ValidationError


class ServiceError(ValidationError):
    """A rule refused the action; the message is meant for the person who tried it."""


class Conflict(ServiceError):
    """Refused because of the object's state, not the input: the same call could succeed
    once the state changes (it is awarded, accepted, closed, or nothing waits for it). The API
    answers 409; a page shows the message."""


class TooBusy(ServiceError):
    """Refused for now, not for good: the organisation's share of the workers is in use. The
    API answers 429 with Retry-After; a page shows the message."""

    retry_after_seconds = 60


class QueueUnavailable(Exception):
    """The task queue (the broker) could not be reached. What was sent is stored and waits;
    the API answers 503 with Retry-After and a page says the same (core.middleware)."""

    retry_after_seconds = 30

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def refusal_add(errors: dict[str, list[str]], refusal: ValidationError) -> None:
    """Add `refusal`'s messages to `errors`, under the field each names (NON_FIELD_ERRORS when
    it names none), after any already there: several rules' refusals answered as one."""
    named = (
        refusal.message_dict
        if hasattr(refusal, "error_dict")
        else {NON_FIELD_ERRORS: refusal.messages}
    )
    for field, messages in named.items():
        errors.setdefault(field, []).extend(messages)
