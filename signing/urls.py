from django.urls import path

from signing import views

app_name = "signing"

urlpatterns = [
    path("org/signing/", views.identity_page, name="identity"),
    path("org/signing/upload/", views.identity_upload, name="identity-upload"),
    path("org/signing/trial/", views.identity_trial, name="identity-trial"),
]
