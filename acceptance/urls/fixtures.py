from django.urls import path

from acceptance.views import acknowledgements, fixtures, lot_parts, reference

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
    # A lot's own fixture and terms (docs/lots.md).
    path(
        "bids/<int:pk>/lots/<int:number>/acknowledge/",
        acknowledgements.acknowledge,
        name="lot-acknowledge",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/parts/",
        lot_parts.lot_parts_detail,
        name="lot-parts",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/own/",
        lot_parts.lot_fixture_own,
        name="lot-fixture-own",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/share/",
        lot_parts.lot_fixture_share,
        name="lot-fixture-share",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/edit/",
        lot_parts.lot_fixture_edit,
        name="lot-fixture-edit",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/v<int:version>/fixture.json",
        lot_parts.lot_fixture_json,
        name="lot-fixture-json",
    ),
    path(
        "requests/<int:pk>/lots/<int:number>/fixture/v<int:version>/bundle.tar.gz",
        lot_parts.lot_fixture_bundle,
        name="lot-fixture-bundle",
    ),
]
