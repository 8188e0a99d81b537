"""Organisation kinds and member roles."""

from django.db import models


class OrgKind(models.TextChoices):
    BUYER = "buyer", "Buyer"
    PROVIDER = "provider", "Provider"


class MemberRole(models.TextChoices):
    ADMIN = "admin", "Administrator"
    MEMBER = "member", "Member"
