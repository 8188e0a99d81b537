"""Pages: forms keep what was typed, downloads are what the manifest says, sealing holds."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile

import pytest
from django.db import connection
from django.urls import reverse

from acceptance.models import Fixture
from acceptance.services import acknowledgement_submit
from engine.evidence.fixtures import SCHEMA_ID, spec_sha256
from tests.acceptance.pages.builders import fixture_post_data

pytestmark = pytest.mark.django_db


def test_a_buyer_attaches_a_fixture_from_a_template_in_one_post(world, buyer):
    client = buyer.client()
    url = reverse("acceptance:fixture-create", args=[world.request.pk])
    page = client.get(url).content.decode()
    assert "Bisection: every node pair" in page and "2 nodes × 8 H200" in page
    # The fabric as people name it, not the library's key for it.
    assert "InfiniBand NDR 400 Gb/s" in page and "ndr400-ib" not in page
    response = client.post(url, {"template": "single-node-nvlink", "name": ""})
    assert response.status_code == 302
    version = Fixture.objects.get(request=world.request).versions.get()
    assert version.spec["tests"]["nccl_tests"]["per_node"] is True


def test_the_edit_form_keeps_input_and_names_the_field_on_error(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(
        fx.version,
        name="Renamed fixture",
        tests__nccl_tests__min_bytes="4G",
        tests__nccl_tests__max_bytes="1G",
        runtime__env="NCCL_IB_HCA=mlx5_0\nNCCL_DEBUG=INFO",
    )
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors["tests__nccl_tests__min_bytes"] == [
        "4 GiB is larger than the largest message size (-e), 1 GiB"
    ]
    html = response.content.decode()
    assert 'value="Renamed fixture"' in html and "NCCL_IB_HCA=mlx5_0" in html
    fx.version.refresh_from_db()
    assert fx.version.spec["name"] != "Renamed fixture"


def test_a_threshold_change_without_a_reason_is_refused_on_that_row(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(fx.version, thresholds__busbw_gbps__all_reduce="300")
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    assert "reason" in response.context["form"].errors["thresholds__busbw_gbps__all_reduce"][0]
    data["reason__thresholds__busbw_gbps__all_reduce"] = "Older switches"
    response = buyer.client().post(url, data, follow=True)
    # The request is published: providers have seen version 1, so the change is version 2.
    assert "Saved as version 2" in response.content.decode()
    v2 = fx.version.fixture.versions.get(number=2)
    assert v2.spec["overrides"][0]["reason"] == "Older switches"
    page = buyer.client().get(reverse("acceptance:fixture-detail", args=[fx.request.pk]))
    assert "Older switches" in page.content.decode()


def test_an_untouched_form_saves_nothing_new(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    assert buyer.client().post(url, fixture_post_data(fx.version)).status_code == 302
    fx.version.refresh_from_db()
    assert fx.version.spec["overrides"] == [] and fx.version.fixture.current_number == 1


def test_the_bundle_is_a_tar_gz_whose_files_match_the_manifest(fx, provider):
    url = reverse("acceptance:fixture-bundle", args=[fx.request.pk, 1])
    response = provider.client().get(url)
    assert response["Content-Type"] == "application/gzip"
    assert 'filename="clusterbid-fixture-v1-' in response["Content-Disposition"]
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as tar:
        files = {
            m.name.split("/", 1)[1]: tar.extractfile(m).read()
            for m in tar.getmembers()
            if m.isfile()
        }
    manifest = json.loads(files.pop("MANIFEST.json"))
    assert manifest == fx.version.manifest
    assert {n: hashlib.sha256(b).hexdigest() for n, b in files.items()} == manifest["files"]
    assert provider.client().get(url).content == response.content  # deterministic


def test_the_spec_json_download_parses_and_names_its_schema(fx, rival_provider):
    url = reverse("acceptance:fixture-json", args=[fx.request.pk, 1])
    response = rival_provider.client().get(url)
    assert response["Content-Disposition"] == 'attachment; filename="fixture-v1.json"'
    spec = json.loads(response.content)
    assert spec["schema"] == SCHEMA_ID == "clusterbid.fixture/1"
    assert spec == fx.version.spec


def test_a_provider_acknowledges_with_an_exception_and_the_buyer_sees_it(fx, provider, buyer):
    url = reverse("acceptance:acknowledge", args=[fx.bid.pk])
    data = {
        "status": "accepted_with_exceptions",
        "exc-TOTAL_FORMS": "3",
        "exc-INITIAL_FORMS": "0",
        "exc-0-text": "DCGM level 2 only on this cluster",
        "exc-0-field": "thresholds.dcgm_level",
        "provider_owner_name": "Nils Berg",
        "provider_owner_contact": "oncall@northwind.example",
    }
    assert provider.client().post(url, data).status_code == 302
    request_page = buyer.client().get(reverse("bids:request-detail", args=[fx.request.pk]))
    html = request_page.content.decode()
    assert "DCGM level 2 only on this cluster" in html and "thresholds.dcgm_level" in html
    bid_page = buyer.client().get(reverse("bids:bid-detail", args=[fx.bid.pk])).content.decode()
    assert "Accepted with exceptions" in bid_page


def test_a_refused_acknowledgement_keeps_what_was_typed(fx, provider):
    url = reverse("acceptance:acknowledge", args=[fx.bid.pk])
    data = {
        "status": "accepted",
        "exc-TOTAL_FORMS": "3",
        "exc-INITIAL_FORMS": "0",
        "exc-0-text": "Spares sit in another hall",
        "provider_owner_name": "Nils Berg",
        "provider_owner_contact": "oncall@northwind.example",
    }
    response = provider.client().post(url, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "choose “Accept with exceptions”" in html
    assert 'value="Spares sit in another hall"' in html


def test_a_sealed_request_shows_the_buyer_no_acknowledgement(fx, provider, buyer):
    acknowledgement_submit(
        bid=fx.bid,
        user=provider.user,
        status="accepted_with_exceptions",
        exceptions=[{"text": "Secret exception", "field": ""}],
    )
    fx.request.sealed = True
    fx.request.save()
    page = buyer.client().get(reverse("bids:request-detail", args=[fx.request.pk]))
    html = page.content.decode()
    section = html[html.index('id="acknowledgements"') :]
    section = section[: section.index("</section>")]
    assert "Secret exception" not in html and "Northwind" not in section
    assert "acknowledgements, like bids, stay hidden" in section


def test_providers_see_a_banner_when_the_fixture_changed(fx, provider, buyer):
    acknowledgement_submit(bid=fx.bid, user=provider.user, status="accepted")
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(fx.version, runtime__cuda_version="12.6")
    assert buyer.client().post(url, data).status_code == 302
    html = provider.client().get(reverse("bids:request-detail", args=[fx.request.pk])).content
    assert b"Please acknowledge again: the fixture is now version 2" in html


def test_the_empty_states_invite_the_buyer_to_start(world, buyer, provider):
    html = buyer.client().get(reverse("bids:request-detail", args=[world.request.pk])).content
    assert b"Attach a fixture" in html and b"Set handoff terms" in html
    html = provider.client().get(reverse("acceptance:fixture-detail", args=[world.request.pk]))
    assert b"has not attached an acceptance fixture" in html.content


def test_the_editor_names_the_image_and_node_problems_on_their_fields(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(
        fx.version,
        runtime__container_image="nvcr.io/nvidia/pytorch:latest",
        allocation__nodes="3",
    )
    response = buyer.client().post(url, data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "Pin the image by digest" in errors["runtime__container_image"][0]
    assert "asks for 2 nodes; the fixture cannot test 3" in errors["allocation__nodes"][0]
    assert 'value="nvcr.io/nvidia/pytorch:latest"' in response.content.decode()


def test_an_untouched_save_says_nothing_changed(fx, buyer):
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    response = buyer.client().post(url, fixture_post_data(fx.version), follow=True)
    messages = [str(m) for m in response.context["messages"]]
    assert messages == ["Nothing changed; version 1 stays current."]


def test_the_fixture_page_names_thresholds_and_fabric_as_people_write_them(fx, provider):
    url = reverse("acceptance:fixture-detail", args=[fx.world.request.pk])
    html = provider.client().get(url).content.decode()
    table = html.split('class="table thresholds"', 1)[1].split("</table>", 1)[0]
    assert "Bus bandwidth, all-reduce (large messages)" in table
    assert "Step time above the reference, at most" in table
    assert ">busbw_gbps.all_reduce<" not in table and ">step_time_tolerance_pct<" not in table
    assert "InfiniBand NDR 400 Gb/s" in html and "on ndr400-ib" not in html
    files = html.split("<dt>Required files</dt><dd>", 1)[1].split("</dd>", 1)[0]
    assert "DCGM diagnostics" in files and "InfiniBand ports (ibstat)" in files
    assert "dcgmi-diag" not in files and "nvidia-smi-query" not in files


def test_the_failure_record_lists_dumps_and_scheduler_output_and_the_editor_sets_them(fx, buyer):
    page = buyer.client().get(reverse("acceptance:fixture-detail", args=[fx.request.pk]))
    html = page.content.decode()
    assert "Flight Recorder dumps (one per rank)" in html
    assert "Scheduler output (Slurm job output, or the pods&#x27; describe and events)" in html
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    data = fixture_post_data(fx.version)
    del data["failure_record__scheduler_output"]  # unticked
    assert buyer.client().post(url, data).status_code == 302
    v2 = fx.version.fixture.versions.get(number=2)
    assert v2.spec["failure_record"]["scheduler_output"] is False
    assert v2.spec["failure_record"]["flight_recorder_dumps"] is True


def test_a_spec_stored_before_the_new_record_keys_asks_for_neither(fx, buyer):
    spec = fx.version.spec
    for key in ("flight_recorder_dumps", "scheduler_output"):
        del spec["failure_record"][key]
    with connection.cursor() as cursor:  # as stored before the keys existed (versions freeze)
        cursor.execute(
            f"UPDATE {fx.version._meta.db_table} SET spec = %s, spec_sha256 = %s WHERE id = %s",
            [json.dumps(spec), spec_sha256(spec), fx.version.pk],
        )
    fx.version.refresh_from_db()
    html = buyer.client().get(reverse("acceptance:fixture-detail", args=[fx.request.pk]))
    assert "Per-worker logs" in html.content.decode()
    assert "Flight Recorder dumps" not in html.content.decode()
    url = reverse("acceptance:fixture-edit", args=[fx.request.pk])
    assert buyer.client().post(url, fixture_post_data(fx.version)).status_code == 302
    assert fx.version.fixture.versions.count() == 1  # unchanged: nothing new to save
