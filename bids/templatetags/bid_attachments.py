"""`{% attachment_rows bid shown as rows %}`: the files a bid page lists for what it shows."""

from __future__ import annotations

from django import template

from bids import selectors
from bids.forms import AttachmentForm
from bids.models import Bid, BidRevision

register = template.Library()


@register.simple_tag
def attachment_rows(bid: Bid, shown: Bid | BidRevision | None) -> list[selectors.AttachmentRow]:
    """A revision's frozen record, or the owner's draft (the only one shown a `Bid`)."""
    if isinstance(shown, BidRevision):
        return selectors.attachment_rows_of_revision(revision=shown)
    if isinstance(shown, Bid):
        return selectors.attachment_rows_of_draft(bid=bid)
    return []


@register.simple_tag
def attachment_form_or_blank(form: object) -> AttachmentForm:
    """The page's bound form after a refused upload (keeps the description), else a blank one."""
    return form if isinstance(form, AttachmentForm) else AttachmentForm()
