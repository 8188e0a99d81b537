from django.urls import path

from contracts.views import terms

app_name = "contracts"

urlpatterns = [
    path("requests/<int:pk>/terms/", terms.terms_detail, name="terms-detail"),
    path("requests/<int:pk>/terms/new/", terms.terms_create, name="terms-create"),
    path("requests/<int:pk>/terms/edit/", terms.terms_edit, name="terms-edit"),
    path(
        "requests/<int:pk>/lots/<int:number>/terms/own/", terms.lot_terms_own, name="lot-terms-own"
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/terms/share/",
        terms.lot_terms_share,
        name="lot-terms-share",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/terms/edit/",
        terms.lot_terms_edit,
        name="lot-terms-edit",
    ),
]
