"""The API world's contract annex with a buyer's signature row, for the tenancy rows."""

from __future__ import annotations

from typing import Any

from annexes.models import AnnexSignature
from tests.annexes.signing_helpers import placeholder_signature


def signed_annex(w: Any) -> dict[str, Any]:
    if not AnnexSignature.objects.filter(annex=w.annex).exists():
        placeholder_signature(w.annex)
    return {"id": w.annex.pk}
