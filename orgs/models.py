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

    class Meta:
        db_table = "bids_membership"  # the table and its rows stay put (core/model_moves.py)
        constraints = [
            models.UniqueConstraint(fields=["user", "organization"], name="one_membership_per_org")
        ]
        ordering = ["organization__name"]

    def __str__(self) -> str:
        return f"{self.user} @ {self.organization.name}"
