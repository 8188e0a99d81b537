"""The browser page where a person creates and revokes their API tokens."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api import services
from api.forms import TokenCreateForm
from api.models import ApiToken
from core.web import errors_into_form
from orgs.access import user_of


@login_required
def token_list(request: HttpRequest) -> HttpResponse:
    user = user_of(request)
    form = TokenCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            token, secret = services.token_create(user=user, name=form.cleaned_data["name"])
        except ValidationError as exc:
            errors_into_form(form, exc)
        else:
            # The secret is in this response only: not in the session, not in the database (a
            # hash), not in a cache (no-store). The page turns its history entry into a plain
            # GET, so a reload shows the list rather than offering to post the form again.
            tokens = ApiToken.objects.filter(user=user).order_by("-created_at")
            context = {
                "tokens": tokens,
                "form": TokenCreateForm(),
                "new_token": token,
                "new_secret": secret,
            }
            response = render(request, "api/tokens.html", context)
            response["Cache-Control"] = "no-store"
            return response
    tokens = ApiToken.objects.filter(user=user).order_by("-created_at")
    context = {"tokens": tokens, "form": form, "new_token": None, "new_secret": None}
    return render(request, "api/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = ApiToken.objects.filter(user=user_of(request), pk=pk).first()
    if token is None:
        raise Http404
    services.token_revoke(token=token)
    messages.success(request, f"Token “{token.name}” ({token.prefix}…) is revoked.")
    return redirect("api:token-list")
