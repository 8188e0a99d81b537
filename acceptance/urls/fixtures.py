from django.urls import path

from acceptance.views import acknowledgements, fixtures, reference

app_name = "acceptance"

urlpatterns = [
    path("requests/<int:pk>/fixture/", fixtures.fixture_detail, name="fixture-detail"),
    path("requests/<int:pk>/fixture/new/", fixtures.fixture_create, name="fixture-create"),
    path("requests/<int:pk>/fixture/edit/", fixtures.fixture_edit, name="fixture-edit"),
    path(
        "requests/<int:pk>/fixture/v<int:number>/fixture.json",
        fixtures.fixture_json,
        name="fixture-json",
    ),
    path(
        "requests/<int:pk>/fixture/v<int:number>/bundle.tar.gz",
        fixtures.fixture_bundle,
        name="fixture-bundle",
    ),
    path(
        "requests/<int:pk>/fixture/references/",
        reference.reference_upload,
        name="fixture-reference-upload",
    ),
    path(
        "fixture-references/<int:pk>/file/",
        reference.reference_download,
        name="fixture-reference-download",
    ),
    path("bids/<int:pk>/acknowledge/", acknowledgements.acknowledge, name="acknowledge"),
]
