"""The buyer's approval policy page: every member reads it; administrators set the thresholds,
approvers record their own delegations (administrators anyone's). Thin: the services decide."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from bids.approval_forms import ApprovalPolicyForm, DelegationForm
from bids.approval_selectors import delegations_of
from bids.models import Delegation
from bids.services.approval_policy import delegation_add, delegation_remove, policy_update
from bids.services.approvals import APPROVING_ROLES, policy_of
from core.web import errors_into_form
from orgs.access import active_org, org_required, user_of
from orgs.choices import MemberRole, OrgKind
from orgs.models import Membership, Organization


@org_required(OrgKind.BUYER)
def approval_policy(request: HttpRequest) -> HttpResponse:
    org, user = _org(request), user_of(request)
    form = ApprovalPolicyForm(request.POST or None, instance=policy_of(organization=org))
    if request.method == "POST" and form.is_valid():
        try:
            policy_update(
                organization=org,
                user=user,
                thresholds={name: form.cleaned_data[name] for name in form.fields},
            )
        except PermissionDenied as exc:
            messages.error(request, str(exc))
            return _page(request, org, policy_form=form, status=403)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(request, f"{org.name}'s approval policy is saved.")
            return redirect("bids:approval-policy")
    return _page(request, org, policy_form=form)


@org_required(OrgKind.BUYER)
@require_POST
def delegation_create(request: HttpRequest) -> HttpResponse:
    org, user = _org(request), user_of(request)
    form = _delegation_form(request, org, data=request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            delegation_add(organization=org, user=user, **data)
        except PermissionDenied as exc:
            messages.error(request, str(exc))
            return _page(request, org, delegation_form=form, status=403)
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            messages.success(
                request,
                f"{_name(data['delegate'])} may approve for {_name(data['delegator'])} from "
                f"{data['starts_on']:%-d %b %Y} until {data['ends_on']:%-d %b %Y}.",
            )
            return redirect("bids:approval-policy")
    return _page(request, org, delegation_form=form)


@org_required(OrgKind.BUYER)
@require_POST
def delegation_end(request: HttpRequest, pk: int) -> HttpResponse:
    org = _org(request)
    delegation = get_object_or_404(Delegation, organization=org, pk=pk)
    try:
        delegation_remove(delegation=delegation, user=user_of(request))
    except PermissionDenied as exc:
        messages.error(request, str(exc))
        return _page(request, org, status=403)
    messages.success(request, "The delegation is removed.")
    return redirect("bids:approval-policy")


def _name(user: User) -> str:
    return user.get_full_name() or user.get_username()


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None  # org_required
    return org


def _delegation_form(
    request: HttpRequest, org: Organization, data: QueryDict | None = None
) -> DelegationForm:
    members = User.objects.filter(memberships__organization=org).order_by("username")
    approving = members.filter(memberships__role__in=APPROVING_ROLES)
    user = user_of(request)
    mine = Membership.objects.filter(organization=org, user=user).first()
    if mine is None or mine.role != MemberRole.ADMIN:
        approving = approving.filter(pk=user.pk)
    initial = {"delegator": user.pk}
    return DelegationForm(
        data,
        initial=initial,
        delegators=approving,
        members=members,
    )


def _page(
    request: HttpRequest,
    org: Organization,
    *,
    policy_form: ApprovalPolicyForm | None = None,
    delegation_form: DelegationForm | None = None,
    status: int = 200,
) -> HttpResponse:
    mine = Membership.objects.filter(organization=org, user=user_of(request)).first()
    role = mine.role if mine else None
    context = {
        "org": org,
        "is_admin": role == MemberRole.ADMIN,
        "may_delegate": role in APPROVING_ROLES,
        "policy_form": policy_form or ApprovalPolicyForm(instance=policy_of(organization=org)),
        "delegation_form": delegation_form or _delegation_form(request, org),
        "delegations": list(delegations_of(organization=org)),
    }
    return render(request, "bids/approval_policy.html", context, status=status)
