from django.urls import path

from sso import scim_views, views

app_name = "sso"

urlpatterns = [
    path("accounts/sso/", views.StartView.as_view(), name="start"),
    path("accounts/sso/callback/", views.CallbackView.as_view(), name="callback"),
    path("org/sign-in/", views.settings_page, name="settings"),
    path("org/sign-in/scim-token/", views.scim_token, name="scim-token"),
    path("scim/v2/Users", scim_views.users, name="scim-users"),
    path("scim/v2/Users/<int:pk>", scim_views.user, name="scim-user"),
]
