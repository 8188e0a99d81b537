"""Keys and certificates, without Django: read a PKCS#12, make the instance's trial CA and issue
a trial certificate from it.

Private keys leave this module only as PKCS#8 DER, and are stored only as core.secrets tokens.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import PublicKeyTypes
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

SIGNING_KEY_TYPES = (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey, ed25519.Ed25519PrivateKey,
                     ed448.Ed448PrivateKey)  # fmt: skip
CA_YEARS = 10
TRIAL_YEARS = 2
TRIAL_OU = "Trial signing identity - not a legal identity"


class KeyStoreError(ValueError):
    """A PKCS#12 that cannot serve as a signing identity; `field` names the form field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class KeyMaterial:
    key_der: bytes  # PKCS#8, unencrypted: encrypt before storing
    cert_der: bytes
    chain_der: tuple[bytes, ...] = ()  # intermediates (and root) the PKCS#12 carried


@dataclass(frozen=True)
class CertFacts:
    subject: str
    common_name: str
    organization: str
    issuer: str
    serial: str
    not_before: datetime
    not_after: datetime
    sha256: str


def _der(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


def _pkcs8(key: object) -> bytes:
    assert isinstance(key, SIGNING_KEY_TYPES)
    return key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )  # fmt: skip


def facts(cert_der: bytes) -> CertFacts:
    cert = x509.load_der_x509_certificate(cert_der)

    def first(oid: x509.ObjectIdentifier) -> str:
        values = cert.subject.get_attributes_for_oid(oid)
        return str(values[0].value) if values else ""

    return CertFacts(
        subject=cert.subject.rfc4514_string(),
        common_name=first(NameOID.COMMON_NAME),
        organization=first(NameOID.ORGANIZATION_NAME),
        issuer=cert.issuer.rfc4514_string(),
        serial=format(cert.serial_number, "x"),
        not_before=cert.not_valid_before_utc,
        not_after=cert.not_valid_after_utc,
        sha256=hashlib.sha256(cert_der).hexdigest(),
    )


def load_pkcs12(data: bytes, password: str, *, now: datetime) -> KeyMaterial:
    """The key, its certificate and chain; `KeyStoreError` naming what is wrong otherwise."""
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(data, password.encode() or None)
    except ValueError:
        # The library says the same for a wrong password and for bytes that are no PKCS#12.
        raise KeyStoreError(
            "password",
            "The file could not be opened with this password, or it is not a PKCS#12 (.p12/"
            ".pfx) file. Check the password and the file.",
        ) from None
    if key is None:
        raise KeyStoreError("pkcs12", "The PKCS#12 holds no private key: export it with the key.")
    if cert is None:
        raise KeyStoreError("pkcs12", "The PKCS#12 holds no certificate for its key.")
    _check_signing_cert(key, cert, now=now)
    chain = tuple(_der(c) for c in extra or [])
    return KeyMaterial(key_der=_pkcs8(key), cert_der=_der(cert), chain_der=chain)


def _check_signing_cert(key: object, cert: x509.Certificate, *, now: datetime) -> None:
    if not isinstance(key, SIGNING_KEY_TYPES):
        raise KeyStoreError("pkcs12", "The key is not RSA, ECDSA or EdDSA; PDF signing needs one.")
    if _der_public(cert.public_key()) != _der_public(key.public_key()):
        raise KeyStoreError("pkcs12", "The certificate does not belong to the private key.")
    try:
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        usage = None
    if usage is not None and not (usage.digital_signature or usage.content_commitment):
        raise KeyStoreError(
            "pkcs12",
            "The certificate's key usage allows no signing (it needs digitalSignature or "
            "nonRepudiation).",
        )
    if cert.not_valid_after_utc < now:
        raise KeyStoreError(
            "pkcs12", f"The certificate expired on {cert.not_valid_after_utc:%Y-%m-%d}."
        )
    if cert.not_valid_before_utc > now:
        raise KeyStoreError(
            # The minute and zone: a certificate made moments ago on a clock running ahead
            # would otherwise be refused as "valid only from" today's date.
            "pkcs12",
            f"The certificate is valid only from {cert.not_valid_before_utc:%Y-%m-%d %H:%M} UTC.",
        )


def _der_public(public_key: PublicKeyTypes) -> bytes:
    return public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _name(common_name: str, organization: str, unit: str = "") -> x509.Name:
    parts = [x509.NameAttribute(NameOID.COMMON_NAME, common_name[:64])]
    if unit:
        parts.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit[:64]))
    parts.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization[:64]))
    return x509.Name(parts)


def _usage(*, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not ca, content_commitment=not ca, key_encipherment=False,
        data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
        encipher_only=False, decipher_only=False,
    )  # fmt: skip


def new_ca(*, common_name: str, now: datetime) -> KeyMaterial:
    """A self-signed root that may issue end-entity certificates only."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name(common_name, "Clusterbid")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=365 * CA_YEARS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_usage(ca=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return KeyMaterial(key_der=_pkcs8(key), cert_der=_der(cert))


def issue_trial(*, ca: KeyMaterial, organization: str, now: datetime) -> KeyMaterial:
    """An end-entity signing certificate for `organization`, marked as a trial in its name."""
    ca_key = serialization.load_der_private_key(ca.key_der, password=None)
    ca_cert = x509.load_der_x509_certificate(ca.cert_der)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(organization, organization, TRIAL_OU))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(min(now + timedelta(days=365 * TRIAL_YEARS), ca_cert.not_valid_after_utc))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(ca=False), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return KeyMaterial(key_der=_pkcs8(key), cert_der=_der(cert), chain_der=(ca.cert_der,))


def issued_by(cert_der: bytes, ca_cert_der: bytes) -> bool:
    """Whether `ca_cert_der` signed `cert_der` (names match and the signature verifies)."""
    cert = x509.load_der_x509_certificate(cert_der)
    ca = x509.load_der_x509_certificate(ca_cert_der)
    try:
        cert.verify_directly_issued_by(ca)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True
