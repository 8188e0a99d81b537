from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.web import errors_into_form, flash_errors
from orgs import selectors, services
from orgs.access import active_org, org_required, user_of
from orgs.choices import MemberRole
from orgs.forms import InviteForm, MemberRoleForm
from orgs.middleware import SESSION_KEY
from orgs.models import Organization


@login_required
@require_POST
def switch_org(request: HttpRequest) -> HttpResponse:
    wanted = request.POST.get("organization", "")
    allowed = {m.organization_id for m in getattr(request, "memberships", [])}
    if wanted.isdigit() and int(wanted) in allowed:
        request.session[SESSION_KEY] = int(wanted)
        # Remembered: the next sign-in and header-less token calls act for it too.
        services.choose_organization(user=user_of(request), org_id=int(wanted))
    # Pages of the previous organisation 404 for the new one, so land on its home.
    return redirect("home")


@org_required()
def member_list(request: HttpRequest) -> HttpResponse:
    """Every member reads the list; an administrator also invites here (POST)."""
    org = _org(request)
    user = user_of(request)
    form = InviteForm(request.POST or None, org=org)
    if request.method == "POST":
        if not selectors.is_member_admin(org=org, user=user):
            return _refused(request, org)
        if form.is_valid():
            try:
                invitation = services.invitation_send(
                    org=org,
                    user=user,
                    email=form.cleaned_data["email"],
                    role=form.cleaned_data["role"],
                )
            except PermissionDenied:
                return _refused(request, org)
            except ValidationError as exc:
                errors_into_form(form, exc)
            else:
                # The same words whether or not an account has this address.
                messages.success(
                    request,
                    f"Invitation to {invitation.email} "
                    f"({invitation.get_role_display().lower()}) recorded. If an account uses "
                    f"this address, its owner is told and joins {org.name} once they accept.",
                )
                return redirect("orgs:members")
    return _page(request, org, form=form)


@org_required()
@require_POST
def invitation_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    org = _org(request)
    invitation = selectors.invitation_for_admin(org=org, pk=pk)
    try:
        services.invitation_withdraw(invitation=invitation, user=user_of(request))
    except PermissionDenied:
        return _refused(request, org)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(request, f"The invitation to {invitation.email} is withdrawn.")
    return redirect("orgs:members")


@login_required
def my_invitations(request: HttpRequest) -> HttpResponse:
    """The signed-in person's open invitations, to accept or decline."""
    invitations = list(selectors.invitations_for(user=request.user))
    return render(request, "orgs/invitations.html", {"invitations": invitations})


@login_required
@require_POST
def invitation_answer(request: HttpRequest, pk: int, answer: str) -> HttpResponse:
    user = user_of(request)
    invitation = selectors.invitation_for_invitee(user=user, pk=pk)
    name = invitation.organization.name
    try:
        if answer == "accept":
            membership = services.invitation_accept(invitation=invitation, user=user)
        else:
            services.invitation_decline(invitation=invitation, user=user)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        if answer == "accept":
            messages.success(
                request,
                f"You are now a member of {name} ({membership.get_role_display().lower()}). "
                "Choose it in the page header to act for it.",
            )
        else:
            messages.success(request, f"You declined the invitation to {name}.")
    return redirect("orgs:invitations")


@org_required()
@require_POST
def member_role(request: HttpRequest, pk: int) -> HttpResponse:
    org = _org(request)
    membership = selectors.membership_get(org=org, pk=pk)
    form = MemberRoleForm(request.POST, org=org)
    if not form.is_valid():
        if not selectors.is_member_admin(org=org, user=user_of(request)):
            return _refused(request, org)
        for error in form.errors.get("role", []):
            messages.error(request, str(error))
        return redirect("orgs:members")
    try:
        changed = services.member_set_role(
            membership=membership, user=user_of(request), role=form.cleaned_data["role"]
        )
    except PermissionDenied:
        return _refused(request, org)
    except ValidationError as exc:
        flash_errors(request, exc)
    else:
        messages.success(
            request,
            f"{changed.user.get_username()} is now {changed.get_role_display().lower()}.",
        )
    return redirect("orgs:members")


@org_required()
@require_POST
def member_remove(request: HttpRequest, pk: int) -> HttpResponse:
    org = _org(request)
    membership = selectors.membership_get(org=org, pk=pk)
    try:
        services.member_remove(membership=membership, user=user_of(request))
    except PermissionDenied:
        return _refused(request, org)
    except ValidationError as exc:
        flash_errors(request, exc)
        return redirect("orgs:members")
    name = membership.user.get_username()
    messages.success(request, f"{name} is no longer a member of {org.name}.")
    if membership.user_id == request.user.pk:
        return redirect("home")  # they removed themselves: this page is no longer theirs
    return redirect("orgs:members")


def _org(request: HttpRequest) -> Organization:
    org = active_org(request)
    assert org is not None  # org_required
    return org


def _refused(request: HttpRequest, org: Organization) -> HttpResponse:
    """A change by someone who is not an administrator: the read-only page, answered 403."""
    messages.error(request, f"Only an administrator of {org.name} can change its members.")
    return _page(request, org, form=None, status=403)


def _page(
    request: HttpRequest, org: Organization, *, form: InviteForm | None, status: int = 200
) -> HttpResponse:
    members = list(selectors.member_list(org=org))
    is_admin = selectors.is_member_admin(org=org, user=request.user)
    context = {
        "org": org,
        "members": members,
        "admins": [m for m in members if m.role == MemberRole.ADMIN],
        "is_admin": is_admin,
        "roles": selectors.roles_for(org),
        "form": form if is_admin else None,
        "invitations": list(selectors.invitations_pending(org=org)) if is_admin else [],
    }
    return render(request, "orgs/members.html", context, status=status)
