"""Make this instance's trial CA now (it is otherwise made the first time a trial identity is
asked for) and print its certificate, to hand to anyone who validates trial signatures."""

from __future__ import annotations

from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from django.core.management.base import BaseCommand

from signing.services import instance_ca


class Command(BaseCommand):
    help = "Make the instance's trial signing CA if it does not exist, and print it as PEM."

    def handle(self, *args: Any, **options: Any) -> None:
        ca = instance_ca()
        cert = x509.load_der_x509_certificate(bytes(ca.certificate_der))
        self.stderr.write(
            f"Trial CA: {cert.subject.rfc4514_string()}, made {ca.created_at:%Y-%m-%d}"
        )
        self.stdout.write(cert.public_bytes(serialization.Encoding.PEM).decode(), ending="")
