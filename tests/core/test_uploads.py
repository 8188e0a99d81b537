"""The three kinds of upload share one stored-upload model: one size rule, one hash, one path."""

from __future__ import annotations

import gzip
import hashlib

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from acceptance.models import Evidence
from core.errors import ServiceError
from core.uploads import (
    MultipleFileField,
    NamedFileField,
    atomic_keeping_no_orphans,
    check_upload,
    sha256_of,
    stored_upload_path,
)
from incidents.models import FailedRunFile, IncidentEvidence
from tests.acceptance.burnin.helpers import awarded
from tests.stored import empty_storage, stored_file_names


def test_each_upload_lands_under_its_owner_and_its_hash() -> None:
    evidence = Evidence(run_id=3, sha256="ab")
    assert evidence.file.field.upload_to(evidence, "x") == "evidence/run-3/ab/x"
    assert stored_upload_path(FailedRunFile(failed_run_id=4, sha256="cd"), "../rank 0.log") == (
        "failed-runs/4/cd/rank_0.log"
    )
    assert stored_upload_path(IncidentEvidence(incident_id=5, sha256="ef"), "d.txt") == (
        "incidents/5/ef/d.txt"
    )


def test_the_hash_is_of_the_bytes_and_the_file_is_rewound() -> None:
    upload = SimpleUploadedFile("a.log", b"hello")
    assert sha256_of(upload) == hashlib.sha256(b"hello").hexdigest()
    assert upload.read() == b"hello"


def test_an_empty_or_oversized_file_is_refused_by_name() -> None:
    # A batch's caller puts the name first; the message itself must not repeat it.
    with pytest.raises(ServiceError) as refused:
        check_upload(SimpleUploadedFile("a.log", b""), limit=10)
    assert refused.value.messages == ["the file is empty; there is nothing to check."]
    with pytest.raises(ServiceError) as refused:
        check_upload(SimpleUploadedFile("b.log", b"x" * 11), limit=10)
    assert refused.value.messages[0].startswith("the file is 11 B; the limit for one file is 10")
    with pytest.raises(ValidationError) as caught:
        check_upload(SimpleUploadedFile("c.log", b""), limit=10, field="file")
    assert caught.value.message_dict == {
        "file": ["c.log: the file is empty; there is nothing to check."]
    }
    check_upload(SimpleUploadedFile("d.log", b"x"), limit=10)


def test_the_form_fields_name_an_empty_file_in_the_same_words() -> None:
    """Not Django's "The submitted file is empty.": the file's name, as a batch upload says it."""
    with pytest.raises(ValidationError) as caught:
        NamedFileField().clean(SimpleUploadedFile("usage.csv", b""))
    assert caught.value.messages == ["usage.csv: the file is empty; there is nothing to check."]
    with pytest.raises(ValidationError) as caught:
        MultipleFileField().clean(
            [SimpleUploadedFile("a.log", b"x"), SimpleUploadedFile("b.log", b"")]
        )
    assert caught.value.messages == ["b.log: the file is empty; there is nothing to check."]
    # Its other errors are Django's own; a file with bytes, or an allowed empty one, passes.
    with pytest.raises(ValidationError) as caught:
        NamedFileField().clean(None)
    assert caught.value.messages == ["This field is required."]
    assert NamedFileField().clean(SimpleUploadedFile("a.log", b"x")).name == "a.log"
    assert NamedFileField(allow_empty_file=True).clean(SimpleUploadedFile("e.log", b"")).size == 0


def test_a_gzip_of_an_empty_file_is_refused_as_an_empty_file_is() -> None:
    # An export's `…-00001.csv.gz` of nothing, or `nccl.log.gz` of an empty log: twenty-odd
    # bytes that unpack to none.
    empty = gzip.compress(b"")
    with pytest.raises(ValidationError) as caught:
        check_upload(SimpleUploadedFile("usage.csv.gz", empty), limit=10**6, field="file")
    assert caught.value.message_dict == {
        "file": [
            "usage.csv.gz: the file is empty once unpacked (a gzip of an empty file); there is "
            "nothing to check."
        ]
    }
    with pytest.raises(ServiceError) as refused:  # a burn-in batch: the name goes first
        check_upload(SimpleUploadedFile("nccl.log.gz", empty), limit=10**6)
    assert refused.value.messages[0].startswith("the file is empty once unpacked")
    upload = SimpleUploadedFile("one.log.gz", gzip.compress(b"\n"))
    check_upload(upload, limit=10**6)  # a gzip of anything is not empty
    assert upload.read() == gzip.compress(b"\n")  # and is rewound for the next reader
    check_upload(SimpleUploadedFile("cut.gz", empty[:-4]), limit=10**6)  # damaged: read later


class _Rollback(Exception):
    pass


@pytest.mark.django_db
def test_files_stored_in_a_transaction_that_rolls_back_are_deleted(awarded, empty_storage) -> None:
    kept = Evidence(run=awarded.run)
    with atomic_keeping_no_orphans():
        kept.store(SimpleUploadedFile("kept.log", b"committed bytes\n"))
        kept.save()
    lost = Evidence(run=awarded.run)
    with pytest.raises(_Rollback), atomic_keeping_no_orphans():
        lost.store(SimpleUploadedFile("lost.log", b"bytes of a row that never was\n"))
        lost.save()
        raise _Rollback
    assert stored_file_names() == ["kept.log"]
    assert Evidence.objects.filter(original_name="lost.log").count() == 0


__all__ = ["awarded", "empty_storage"]  # fixtures
