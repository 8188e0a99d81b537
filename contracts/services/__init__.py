"""Writes for handoff terms."""

from contracts.services.terms import lot_terms_own, lot_terms_share, terms_create, terms_update

__all__ = ["lot_terms_own", "lot_terms_share", "terms_create", "terms_update"]
