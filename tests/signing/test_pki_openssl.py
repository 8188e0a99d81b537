"""PKCS#12 files made the way users make them, with the openssl command line: both of its
encryptions (AES-256/PBKDF2 and -legacy RC2/3DES), RSA and EC P-256 keys, with the CA chain,
and the files a signing identity must refuse, each with its own message."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509

from signing import pki
from tests.conftest import require_service


@pytest.fixture(autouse=True)
def _openssl() -> None:
    """Skipped on a laptop without the openssl command; a failure in CI, which must have it."""
    require_service(shutil.which("openssl") is not None, "the openssl command is not installed")


def _ssl(tmp: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=tmp, check=True, capture_output=True)


RSA = ("-newkey", "rsa:2048")
EC_P256 = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256")


def _self_signed(tmp: Path, name: str, *, key: tuple[str, ...], usage: str) -> None:
    _ssl(
        tmp,
        "req",
        "-x509",
        *key,
        "-nodes",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.crt",
        "-days",
        "30",
        "-subj",
        f"/CN={name}/O=Acme",
        "-addext",
        f"keyUsage=critical,{usage}",
    )


def _export(tmp: Path, name: str, *extra: str) -> bytes:
    out = f"{name}{len(extra)}.p12"
    _ssl(tmp, "pkcs12", "-export", "-out", out, "-passout", "pass:pw", *extra)
    return (tmp / out).read_bytes()


@pytest.mark.parametrize("key", [RSA, EC_P256], ids=["rsa2048", "ec-p256"])
@pytest.mark.parametrize("legacy", [False, True])
def test_openssl_exports_open_with_either_encryption(tmp_path, key, legacy):
    _self_signed(tmp_path, "signer", key=key, usage="digitalSignature")
    flags = ["-legacy"] if legacy else []
    data = _export(tmp_path, "signer", "-inkey", "signer.key", "-in", "signer.crt", *flags)
    assert (
        pki.facts(pki.load_pkcs12(data, "pw", now=datetime.now(UTC)).cert_der).common_name
        == "signer"
    )


def test_the_ca_chain_in_the_file_is_kept(tmp_path):
    _ssl(
        tmp_path,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "300",
        "-subj",
        "/CN=Acme CA/O=Acme",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    )
    _ssl(
        tmp_path,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "leaf.key",
        "-out",
        "leaf.csr",
        "-subj",
        "/CN=Leaf/O=Acme",
    )
    (tmp_path / "ext.cnf").write_text("keyUsage=critical,digitalSignature\n")
    _ssl(
        tmp_path,
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "30",
        "-extfile",
        "ext.cnf",
        "-out",
        "leaf.crt",
    )
    data = _export(tmp_path, "leaf", "-inkey", "leaf.key", "-in", "leaf.crt", "-certfile", "ca.crt")
    assert len(pki.load_pkcs12(data, "pw", now=datetime.now(UTC)).chain_der) == 1


def test_unfit_openssl_files_are_refused_each_with_its_reason(tmp_path):
    _self_signed(tmp_path, "enc", key=RSA, usage="keyEncipherment")
    _self_signed(tmp_path, "ok", key=RSA, usage="digitalSignature")
    cases = {
        "key usage allows no signing": (
            _export(tmp_path, "enc", "-inkey", "enc.key", "-in", "enc.crt"),
            "pw",
        ),
        "holds no private key": (_export(tmp_path, "ok", "-nokeys", "-in", "ok.crt"), "pw"),
        "could not be opened with this password": (
            _export(tmp_path, "ok", "-inkey", "ok.key", "-in", "ok.crt"),
            "wrong",
        ),
    }
    for reason, (data, password) in cases.items():
        with pytest.raises(pki.KeyStoreError, match=reason):
            pki.load_pkcs12(data, password, now=datetime.now(UTC))
    expired = datetime(datetime.now(UTC).year + 2, 1, 1, tzinfo=UTC)
    data = cases["could not be opened with this password"][0]
    with pytest.raises(pki.KeyStoreError, match="certificate expired on"):
        pki.load_pkcs12(data, "pw", now=expired)


def test_a_certificate_made_moments_ahead_names_the_minute_it_becomes_valid(tmp_path):
    _self_signed(tmp_path, "ok", key=RSA, usage="digitalSignature")
    data = _export(tmp_path, "ok", "-inkey", "ok.key", "-in", "ok.crt")
    starts = pki.load_pkcs12(data, "pw", now=datetime.now(UTC))
    valid_from = x509.load_der_x509_certificate(starts.cert_der).not_valid_before_utc
    with pytest.raises(pki.KeyStoreError, match=f"valid only from {valid_from:%Y-%m-%d %H:%M} UTC"):
        pki.load_pkcs12(data, "pw", now=valid_from - timedelta(minutes=2))
