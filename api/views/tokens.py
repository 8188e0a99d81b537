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

# The secret waits in the session between the POST and the page that shows it, so that a
# reload shows the list instead of offering to resubmit the form and mint a second token.
_NEW_TOKEN_KEY = "api_new_token"


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
            request.session[_NEW_TOKEN_KEY] = [token.pk, secret]
            return redirect("api:token-list")
    tokens = ApiToken.objects.filter(user=user).order_by("-created_at")
    new_token, new_secret = None, None
    if request.method == "GET" and (pending := request.session.pop(_NEW_TOKEN_KEY, None)):
        pk, secret = pending
        new_token = next((t for t in tokens if t.pk == pk and t.is_active), None)
        # Shown on this one response only; the session forgets it and the database never had it.
        new_secret = secret if new_token else None
    context = {"tokens": tokens, "form": form, "new_token": new_token, "new_secret": new_secret}
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
