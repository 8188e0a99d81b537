"""Looking inside default storage the same way on local disk and in an S3 bucket, so tests of
what is stored also hold under `TEST_FILE_STORAGE=s3`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.orphans import stored_names
from tests.ops.s3 import bucket_options


@pytest.fixture
def empty_storage(settings: Any, tmp_path: Path) -> None:
    """Default storage holding nothing yet: a fresh media folder, or, when the tests run on S3,
    a fresh bucket on the same server (the session's bucket holds every other test's files)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    default = settings.STORAGES["default"]
    if default["BACKEND"] == "storages.backends.s3.S3Storage":
        options = bucket_options(default["OPTIONS"]["endpoint_url"])
        settings.STORAGES = {**settings.STORAGES, "default": {**default, "OPTIONS": options}}


def stored_file_names() -> list[str]:
    """The last part of every stored file's name, sorted."""
    return sorted(name.rsplit("/", 1)[-1] for name in stored_names())
