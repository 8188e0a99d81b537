"""An S3-compatible store for tests: moto in server mode (a real HTTP endpoint on loopback, as
the product would meet MinIO or AWS), and the settings that point default storage at it."""

from __future__ import annotations

import contextlib
import logging
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

KEYS = {"access_key": "testing", "secret_key": "testing"}
REGION = "us-east-1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per S3 call otherwise
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def client_for(endpoint: str) -> Any:
    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id=KEYS["access_key"],
        aws_secret_access_key=KEYS["secret_key"],
    )


def bucket_options(endpoint: str) -> dict[str, Any]:
    """A fresh private bucket, and S3Storage's options for it (as config/settings.py sets)."""
    bucket = f"clusterbid-{uuid.uuid4().hex[:12]}"
    client_for(endpoint).create_bucket(Bucket=bucket)
    return {
        "bucket_name": bucket,
        "endpoint_url": endpoint,
        "region_name": REGION,
        "addressing_style": "path",
        "default_acl": None,
        "file_overwrite": False,
        "querystring_auth": True,
        "querystring_expire": 60,
        **KEYS,
    }


@contextlib.contextmanager
def moto_bucket() -> Iterator[dict[str, Any]]:
    with moto_server() as endpoint:
        yield bucket_options(endpoint)


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture
def s3_storage(settings: Any, s3_endpoint: str) -> Any:
    """Default storage on a fresh private bucket; returns a boto3 client to look inside it."""
    options = bucket_options(s3_endpoint)
    default = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}
    settings.STORAGES = {**settings.STORAGES, "default": default}
    client = client_for(s3_endpoint)
    client.bucket = options["bucket_name"]
    return client


def storage_env() -> dict[str, str]:
    """The environment that gives a subprocess (a real worker, a management command) the file
    storage this test process has: the same bucket under FILE_STORAGE=s3, else nothing."""
    from django.conf import settings

    default = settings.STORAGES["default"]
    if default["BACKEND"] != "storages.backends.s3.S3Storage":
        return {}
    o = default["OPTIONS"]
    return {
        "FILE_STORAGE": "s3",
        "S3_BUCKET": o["bucket_name"],
        "S3_ENDPOINT_URL": o["endpoint_url"],
        "S3_REGION": o["region_name"],
        "S3_ACCESS_KEY_ID": o["access_key"],
        "S3_SECRET_ACCESS_KEY": o["secret_key"],
        "S3_ADDRESSING": o["addressing_style"],
    }
