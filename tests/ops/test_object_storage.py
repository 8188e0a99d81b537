"""Files in an S3-compatible bucket (FILE_STORAGE=s3): uploads land in the bucket, downloads
still pass the app's permission checks, and the isolated analysis child streams the bundle
from the bucket instead of assuming a path on this host."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse

from incidents import services
from incidents.models import FailedRunState
from tests.incidents.helpers import accepted, scenario_upload  # noqa: F401 (fixture)
from tests.ops.s3 import s3_endpoint, s3_storage  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def _keys(client) -> list[str]:
    listed = client.list_objects_v2(Bucket=client.bucket)
    return [o["Key"] for o in listed.get("Contents", [])]


def test_a_failed_run_lands_in_the_bucket_and_is_analysed_by_the_isolated_child(
    accepted,  # noqa: F811
    provider,
    buyer,
    rival_provider,
    s3_storage,  # noqa: F811
    settings,
    django_capture_on_commit_callbacks,
):
    settings.ANALYSIS_ISOLATED = True
    upload = scenario_upload(ranks=64, culprit=37)
    data = upload.read()
    upload.seek(0)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.failed_run_upload(
            reservation=accepted.reservation, user=provider.user, uploads=[upload]
        )
    run.refresh_from_db()
    stored = run.files.get()
    assert stored.file.name in _keys(s3_storage)
    with pytest.raises(NotImplementedError):
        stored.file.path  # noqa: B018 (no local path: the child had to stream it)
    assert run.state == FailedRunState.ANALYSED, run.error
    assert run.analysis["initiating_rank"] == 37

    url = reverse("incidents:failed-run-file", args=[stored.pk])
    owner = buyer.client().get(url)
    assert owner.status_code == 200 and b"".join(owner.streaming_content) == data
    assert rival_provider.client().get(url).status_code == 404


def test_the_storage_never_overwrites_a_stored_name(s3_storage):  # noqa: F811
    from django.core.files.base import ContentFile

    first = default_storage.save("evidence/a.log", ContentFile(b"one"))
    second = default_storage.save("evidence/a.log", ContentFile(b"two"))
    assert first == "evidence/a.log" and second != first
    with default_storage.open(first, "rb") as fh:
        assert fh.read() == b"one"
