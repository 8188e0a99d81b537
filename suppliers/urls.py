from django.urls import path

from suppliers import views

app_name = "suppliers"

urlpatterns = [
    path("org/profile/", views.profile, name="profile"),
    path("org/profile/documents/", views.document_add, name="document-add"),
    path("org/profile/documents/<int:pk>/", views.document_download, name="document-download"),
    path("org/profile/documents/<int:pk>/remove/", views.document_remove, name="document-remove"),
]
