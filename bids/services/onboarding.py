"""Inviting a provider that has no account yet: the buyer names an e-mail address; the person
receives a signed link that expires after SUPPLIER_INVITATION_DAYS, creates the provider
organisation and its first administrator from it, and lands invited to the request.

A link is refused, in words, when its signature does not hold, when it expired, when it was
used already, and when the address typed is not the one invited (the link is for that
person's organisation; a colleague is invited from the members page afterwards).
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from audit.members import record_org_action
from audit.services import buyer_only, parties
from bids.audit import record_request
from bids.lifecycle import request_move
from bids.models import CapacityRequest, Invitation, SupplierInvitation
from bids.notices import invitation_notify
from core.errors import Conflict, ServiceError
from core.queueing import send_task
from notices.services import absolute_url
from orgs.choices import MemberRole, OrgKind
from orgs.models import Membership, Organization

SALT = "bids.supplier-invitation"


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def token_for(invitation: SupplierInvitation) -> str:
    return signing.dumps({"invitation": invitation.pk}, salt=SALT)


def join_url(invitation: SupplierInvitation) -> str:
    return absolute_url(reverse("bids:supplier-join", args=[token_for(invitation)]))


@transaction.atomic
def supplier_invite(
    *, capacity_request: CapacityRequest, user: User, email: str, company: str = ""
) -> SupplierInvitation:
    """Invite a provider by e-mail; the e-mail with its link is sent once this commits."""
    request_move(capacity_request, "invite", user=user)
    address = (email or "").strip().lower()
    try:
        validate_email(address)
    except ValidationError:
        raise ValidationError(
            {"email": ["Enter an e-mail address, like name@example.com."]}
        ) from None
    still_open = SupplierInvitation.objects.filter(
        request=capacity_request,
        email=address,
        used_at__isnull=True,
        expires_at__gt=timezone.now(),
    )
    if still_open.exists():
        raise ValidationError(
            {"email": [f"{address} already has an open invitation to this request."]}
        )
    invitation = SupplierInvitation.objects.create(
        request=capacity_request, email=address, company=company.strip(), invited_by=user
    )
    record_request(
        capacity_request=capacity_request,
        action="request.invite_supplier",
        user=user,
        after={"email": address, "expires_at": invitation.expires_at},
        audience=buyer_only(buyer_org_id=capacity_request.buyer_id),
    )
    transaction.on_commit(lambda: _queue(invitation.pk))
    return invitation


def _queue(invitation_id: int) -> None:
    from bids.tasks import send_supplier_invitation

    send_task(
        send_supplier_invitation,
        invitation_id,
        what=f"The e-mail of supplier invitation #{invitation_id}",
        quiet=True,
    )


def supplier_invitation_email(*, invitation_id: int) -> str:
    """Mail the invitation's link, once: a redelivered task finds `emailed_at` set."""
    with transaction.atomic():
        invitation = (
            SupplierInvitation.objects.select_for_update()
            .select_related("request__buyer")
            .filter(pk=invitation_id)
            .first()
        )
        if invitation is None:
            return "gone"
        if invitation.emailed_at is not None:
            return "already sent"
        req = invitation.request
        send_mail(
            f"[Clusterbid] {req.buyer.name} invites you to bid on “{req.title}”",
            (
                f"{req.buyer.name} invites your company to bid on “{req.title}” on Clusterbid.\n\n"
                "Create your provider organisation and its administrator account here:\n"
                f"{join_url(invitation)}\n\n"
                f"The link works once, for {invitation.email}, until "
                f"{_when(invitation.expires_at)}.\n"
            ),
            settings.DEFAULT_FROM_EMAIL,
            [invitation.email],
        )
        invitation.emailed_at = timezone.now()
        invitation.save(update_fields=["emailed_at"])
    return "sent"


def supplier_invitations_expire(*, now: datetime | None = None) -> int:
    """Mark the unused invitations whose link has expired as expired, at the moment it expired,
    each with an entry on its request's record (the buyer's alone). A second run finds none
    left to mark. How many were marked."""
    now = now or timezone.now()
    marked = 0
    due = SupplierInvitation.objects.filter(
        used_at__isnull=True, expired_at__isnull=True, expires_at__lte=now
    )
    for pk in due.values_list("pk", flat=True).order_by("pk"):
        with transaction.atomic():
            invitation = (
                SupplierInvitation.objects.select_for_update()
                .select_related("request")
                .filter(pk=pk, used_at__isnull=True, expired_at__isnull=True)
                .first()
            )
            if invitation is None:  # used or marked by another run meanwhile
                continue
            invitation.expired_at = invitation.expires_at
            invitation.save(update_fields=["expired_at"])
            req = invitation.request
            record_request(
                capacity_request=req,
                action="request.supplier_invitation_expired",
                user=None,
                after={"email": invitation.email, "expired_at": invitation.expires_at},
                audience=buyer_only(buyer_org_id=req.buyer_id),
            )
            marked += 1
    return marked


def invitation_from_token(token: str) -> SupplierInvitation:
    """The invitation a link names, if it can still be used; `Conflict` says why not."""
    max_age = settings.SUPPLIER_INVITATION_DAYS * 86400
    try:
        payload = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise Conflict(
            "This invitation link has expired. Ask the buyer who sent it to invite you again."
        ) from None
    except signing.BadSignature:
        raise ServiceError(
            "This invitation link is not valid: it may have been cut short. Open the whole "
            "link from the e-mail, or ask the buyer to invite you again."
        ) from None
    invitation = (
        SupplierInvitation.objects.select_related("request__buyer", "provider")
        .filter(pk=payload.get("invitation"))
        .first()
    )
    if invitation is None:
        raise ServiceError("This invitation was withdrawn. Ask the buyer to invite you again.")
    if invitation.used_at is not None:
        name = invitation.provider.name if invitation.provider else "an organisation"
        raise Conflict(
            f"This invitation was already used on {_when(invitation.used_at)} to create "
            f"{name}. Sign in instead; its administrators can invite colleagues."
        )
    if invitation.expires_at <= timezone.now():
        raise Conflict(
            f"This invitation expired on {_when(invitation.expires_at)}. Ask "
            f"{invitation.request.buyer.name} to invite you again."
        )
    return invitation


@transaction.atomic
def supplier_join(
    *,
    token: str,
    organization_name: str,
    username: str,
    email: str,
    password: str,
) -> tuple[User, Organization]:
    """Create the provider organisation and its first administrator from an invitation link,
    and invite the organisation to the request."""
    invitation = invitation_from_token(token)
    invitation = SupplierInvitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.used_at is not None:
        raise Conflict("This invitation was used a moment ago. Sign in instead.")
    address = (email or "").strip().lower()
    if address != invitation.email:
        raise ValidationError(
            {
                "email": [
                    f"This invitation was sent to {invitation.email}: sign up with that address, "
                    "or ask the buyer to invite the other one."
                ]
            }
        )
    _check_new_account(
        organization_name=organization_name, username=username, email=address, password=password
    )
    user = User.objects.create_user(username=username, email=address, password=password)
    org = Organization.objects.create(
        name=organization_name.strip(), slug=_free_slug(organization_name), kind=OrgKind.PROVIDER
    )
    Membership.objects.create(user=user, organization=org, role=MemberRole.ADMIN)
    invitation.used_at = timezone.now()
    invitation.provider = org
    invitation.save(update_fields=["used_at", "provider"])
    record_org_action(
        organization=org,
        user=user,
        action="member.add",
        after={"username": username, "role": MemberRole.ADMIN, "invited_by": invitation.email},
    )
    req = invitation.request
    Invitation.objects.get_or_create(request=req, provider=org)
    record_request(
        capacity_request=req,
        action="request.invite",
        user=invitation.invited_by,
        after={"provider": org.name, "by_email": invitation.email},
        audience=parties(buyer_org_id=req.buyer_id, provider_org_id=org.pk),
    )
    invitation_notify(capacity_request=req, provider=org)
    return user, org


def _check_new_account(*, organization_name: str, username: str, email: str, password: str) -> None:
    errors: dict[str, list[str]] = {}
    name = organization_name.strip()
    if not name:
        errors["organization_name"] = ["Name your organisation, as buyers should see it."]
    elif Organization.objects.filter(name__iexact=name).exists():
        errors["organization_name"] = [
            f"An organisation named {name} already exists: if it is yours, ask one of its "
            "administrators to invite you; otherwise choose the full legal name."
        ]
    if User.objects.filter(username__iexact=username).exists():
        errors["username"] = ["This username is taken; choose another."]
    if User.objects.filter(email__iexact=email).exists():
        errors["email"] = [
            "An account already uses this address. Sign in with it, and ask the buyer to "
            "invite the organisation you act for."
        ]
    try:
        validate_password(password, User(username=username, email=email))
    except ValidationError as exc:
        errors["password1"] = list(exc.messages)
    if errors:
        raise ValidationError(errors)


def _free_slug(name: str) -> str:
    base = slugify(name)[:50] or "provider"
    slug, n = base, 1
    while Organization.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug
