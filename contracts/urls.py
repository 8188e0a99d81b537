from django.urls import path

from contracts.views import terms

app_name = "contracts"

urlpatterns = [
    path("requests/<int:pk>/terms/", terms.terms_detail, name="terms-detail"),
    path("requests/<int:pk>/terms/new/", terms.terms_create, name="terms-create"),
    path("requests/<int:pk>/terms/edit/", terms.terms_edit, name="terms-edit"),
]
