from __future__ import annotations

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse

from bids.models import BidRevision, SentNotification


def notification_bid_revision(*, revision: BidRevision) -> SentNotification | None:
    """Mail the buyer's members that a revision arrived; at most once per revision.

    A sealed request's notice names no bidder: the buyer must not learn who bid before the deadline.
    """
    key = f"bid-revision:{revision.pk}"
    if SentNotification.objects.filter(key=key).exists():
        return None
    request = revision.bid.request
    recipients = sorted(
        {m.user.email for m in request.buyer.memberships.select_related("user") if m.user.email}
    )
    if request.bids_hidden_from_buyer:
        subject = f"[Clusterbid] A sealed bid arrived on “{request.title}”"
        body = (
            f"A provider submitted a bid on “{request.title}”. The request is sealed: bids and "
            f"bidders become visible at the deadline "
            f"({request.bid_deadline:%d %b %Y %H:%M %Z}), or when you close bidding early."
        )
    else:
        subject = f"[Clusterbid] {revision.bid.provider.name} submitted revision {revision.number}"
        body = (
            f"{revision.bid.provider.name} submitted revision {revision.number} of its bid on "
            f"“{request.title}” at {revision.price_per_gpu_hour} USD per GPU-hour."
        )
    link = settings.SITE_URL.rstrip("/") + reverse("bids:request-detail", args=[request.pk])
    body += f"\n\n{link}\n"
    try:
        with transaction.atomic():
            notice = SentNotification.objects.create(key=key, recipients=recipients)
            if recipients:
                send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, recipients)
    except IntegrityError:
        return None  # a concurrent run sent it first
    return notice
