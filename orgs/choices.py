"""Organisation kinds and member roles."""

from django.db import models


class OrgKind(models.TextChoices):
    BUYER = "buyer", "Buyer"
    PROVIDER = "provider", "Provider"


class MemberRole(models.TextChoices):
    """Roles within an organisation. Requester (buyer side) and engineer (provider side) do the
    day-to-day work; an approver gives the second signature some moves need; an admin may do
    both and manages the members."""

    REQUESTER = "requester", "Requester"
    ENGINEER = "engineer", "Engineer"
    APPROVER = "approver", "Approver"
    ADMIN = "admin", "Administrator"


# The roles each kind of organisation has.
ROLES_BY_KIND = {
    OrgKind.BUYER: (MemberRole.REQUESTER, MemberRole.APPROVER, MemberRole.ADMIN),
    OrgKind.PROVIDER: (MemberRole.ENGINEER, MemberRole.APPROVER, MemberRole.ADMIN),
}
