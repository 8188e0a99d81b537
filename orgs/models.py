from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from orgs.choices import MemberRole, OrgKind


class Organization(models.Model):
    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=60, unique=True)
    kind = models.CharField(max_length=10, choices=OrgKind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "bids_organization"  # the table and its rows stay put (core/model_moves.py)
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_kind_display()})"

    @property
    def is_buyer(self) -> bool:
        return self.kind == OrgKind.BUYER

    @property
    def is_provider(self) -> bool:
        return self.kind == OrgKind.PROVIDER


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=MemberRole.choices)
    created_at = models.DateTimeField("member since", default=timezone.now)
    # When the person last chose this organisation in the page header: the newest is where
    # their next sign-in and their header-less token calls act (orgs.selectors).
    chosen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "bids_membership"  # the table and its rows stay put (core/model_moves.py)
        constraints = [
            models.UniqueConstraint(fields=["user", "organization"], name="one_membership_per_org")
        ]
        ordering = ["organization__name"]

    def __str__(self) -> str:
        return f"{self.user} @ {self.organization.name}"


class InvitationState(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    WITHDRAWN = "withdrawn", "Withdrawn"
    EXPIRED = "expired", "Expired"


def invitation_expiry() -> datetime:
    """When an invitation sent now stops being acceptable (MEMBER_INVITATION_DAYS)."""
    return timezone.now() + timedelta(days=settings.MEMBER_INVITATION_DAYS)


class MemberInvitation(models.Model):
    """An administrator's offer of membership to an e-mail address. It names no account: the
    person whose account has that address accepts or declines it while signed in, and until
    they accept the organisation learns nothing of theirs."""

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="member_invitations"
    )
    email = models.EmailField()  # stored lower-case
    role = models.CharField(max_length=10, choices=MemberRole.choices)
    state = models.CharField(
        max_length=10, choices=InvitationState.choices, default=InvitationState.PENDING
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Past it the invitation can no longer be accepted; the next invitation to the same
    # address closes it as expired.
    expires_at = models.DateTimeField(default=invitation_expiry)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "email"],
                condition=models.Q(state="pending"),
                name="one_pending_invitation_per_address",
            )
        ]
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.email} → {self.organization.name} ({self.state})"

    @property
    def is_expired(self) -> bool:
        return self.state == InvitationState.PENDING and self.expires_at <= timezone.now()
