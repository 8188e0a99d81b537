from django.urls import path

from sso import views

app_name = "sso"

urlpatterns = [
    path("accounts/sso/", views.StartView.as_view(), name="start"),
    path("accounts/sso/callback/", views.CallbackView.as_view(), name="callback"),
    path("org/sign-in/", views.settings_page, name="settings"),
]
