"""With SIGNING_TSA_URL set, each signature carries an RFC 3161 timestamp (PAdES B-T) and the
page gives the authority's time instead of the signer's clock. The authority here is pyHanko's
own test TSA behind a loopback HTTP server."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps.dummy_client import DummyTimeStamper

from annexes.signatures import signing_report
from annexes.signing import annex_sign, signing_state
from signing.services import identity_trial
from tests.annexes.signing_helpers import ca_pem, own_ca, rendered_contract


def _tsa_certificate(ca):
    ca_key, ca_cert = ca
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # the test TSA is RSA-only
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Loopback TSA")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + timedelta(days=30))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    der_key = key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return DummyTimeStamper(
        tsa_cert=asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER)),
        tsa_key=asn1_keys.PrivateKeyInfo.load(der_key),
    )


@pytest.fixture
def tsa_url():
    ca = own_ca()
    stamper = _tsa_certificate(ca)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            reply = stamper.request_tsa_response(tsp.TimeStampReq.load(body)).dump()
            self.send_response(200)
            self.send_header("Content-Type", "application/timestamp-reply")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/tsa", ca
    server.shutdown()
    server.server_close()


def test_a_timestamp_authority_stamps_each_signature(
    tsa_url, awarded, buyer, buyer_approver, settings, tmp_path
):
    url, ca = tsa_url
    root = tmp_path / "tsa-root.pem"
    root.write_bytes(ca_pem(ca))
    settings.SIGNING_TSA_URL = url
    settings.SIGNING_TRUST_ROOTS = [str(root)]
    identity_trial(org=buyer.org, user=buyer.user)
    annex = rendered_contract(awarded)
    signature = annex_sign(annex=annex, user=buyer_approver.user, org=buyer.org, confirmed=True)
    assert signature.timestamped
    report = signing_report(state=signing_state(annex=annex))
    (view,) = report.signatures
    assert view.timestamp_at is not None and abs(view.timestamp_at - signature.signed_at) < (
        timedelta(minutes=1)
    )
    assert view.unchanged and view.trusted
    assert report.clock_note == "" and report.timestamp_authority == url


def test_an_unreachable_timestamp_authority_signs_nothing(awarded, buyer, buyer_approver, settings):
    from annexes.models import AnnexSignature
    from core.errors import ServiceError

    settings.SIGNING_TSA_URL = "http://127.0.0.1:9/tsa"  # nothing listens on the discard port
    settings.SIGNING_TSA_TIMEOUT_SECONDS = 2
    identity_trial(org=buyer.org, user=buyer.user)
    annex = rendered_contract(awarded)
    with pytest.raises(ServiceError, match="could not be signed"):
        annex_sign(annex=annex, user=buyer_approver.user, org=buyer.org, confirmed=True)
    assert not AnnexSignature.objects.exists()
