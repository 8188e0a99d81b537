"""Service errors shown to the user: as flash messages, or on the form field they name."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest

KEPT_INPUT = "kept_input:"


def keep_input(request: HttpRequest, *, key: str, data: dict[str, str]) -> None:
    """What a refused form held, for the page the refusal redirects to: a form posted from a
    page it does not own (a panel) cannot be shown again with its errors, so the page that
    draws it fills it back in from here, once."""
    request.session[KEPT_INPUT + key] = data


def kept_input(request: HttpRequest, *, key: str) -> dict[str, str]:
    kept = request.session.pop(KEPT_INPUT + key, None)
    return kept if isinstance(kept, dict) else {}


def flash_errors(request: HttpRequest, exc: ValidationError) -> None:
    for message in exc.messages:
        messages.error(request, message)


def errors_into_form(form: Any, exc: ValidationError) -> None:
    """Put a service's field errors on the form's fields so the user sees them in place."""
    if hasattr(exc, "error_dict"):
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, exc.messages)


def flashed_or_onto_form(request: HttpRequest, form: Any, exc: ValidationError) -> bool:
    """A refusal that names fields goes onto the form, which the page shows again with what was
    typed (False); one that names none (party, role, state: nothing to fix) is flashed (True),
    and the caller redirects."""
    if hasattr(exc, "error_dict"):
        errors_into_form(form, exc)
        return False
    flash_errors(request, exc)
    return True
