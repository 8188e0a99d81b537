from django import template

from orgs.models import Organization
from signing.models import SigningIdentity
from signing.selectors import TRIAL_MARK, identity_current

register = template.Library()


@register.simple_tag
def current_signing_identity(org: Organization) -> SigningIdentity | None:
    return identity_current(org=org)


@register.simple_tag
def trial_mark() -> str:
    return TRIAL_MARK
