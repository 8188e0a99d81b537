"""Writes for handoff terms."""

from contracts.services.terms import terms_create, terms_update

__all__ = ["terms_create", "terms_update"]
