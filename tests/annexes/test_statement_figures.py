"""The statement adds up: every figure read back from the PDF's text is recomputed from the
working printed beside it, no money amount is negative, an availability has at most three
decimals and no table heading is broken inside a word.

The reservation is the worked example (docs/availability.md); a provider's bill of $760.00 is
reconciled over its three months, so the credits its incidents earn ($7,142.40 in January
alone) are far more than the bill: they are applied up to what the bill allows, and the
statement says which input to check rather than print a negative payment.
"""

from __future__ import annotations

import io
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from pypdf import PdfReader

from annexes.document.statement import statement_snapshot
from annexes.document.statement_doc import statement_document
from annexes.models import Annex, AnnexKind
from annexes.services import annex_request
from billing import services as billing
from billing.models import UsageUpload
from engine.billing import Mapping
from tests.delivery.test_worked_example import build

pytestmark = pytest.mark.django_db

# 10 h, 10 h and 27.5 h of one 8-GPU node at the agreed $2.00: $760.00 over January to March.
SMALL_BILL = b"""usage_start,usage_end,instance_id,gpu_count,hours,rate_usd,amount_usd,line_type
2026-01-20T00:00:00Z,2026-01-20T10:00:00Z,gpu-01,8,10,2.00,160.00,gpu
2026-02-20T00:00:00Z,2026-02-20T10:00:00Z,gpu-01,8,10,2.00,160.00,gpu
2026-03-20T00:00:00Z,2026-03-21T03:30:00Z,gpu-01,8,27.5,2.00,440.00,gpu
"""

NUM = r"-?[\d,]+(?:\.\d+)?"
MONEY = rf"(-?)\$({NUM[2:]})"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _d(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def _round(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


# A long file name is one long word: the bills table cannot fit every word whole, and the
# columns give way around the headings rather than break "Allowed" into "Allowe d".
LONG_NAME = "northwind-usage-export-2026-q1-all-reservations-reconciled.csv"


def _reconcile(reservation, user, content: bytes, name: str = LONG_NAME) -> UsageUpload:
    upload = SimpleUploadedFile(name, content)
    with TestCase.captureOnCommitCallbacks(execute=True):
        row = billing.usage_upload(reservation=reservation, user=user, upload=upload)
    row.refresh_from_db()
    if row.state == "mapping":
        guess = Mapping.from_json(row.mapping)
        with TestCase.captureOnCommitCallbacks(execute=True):
            billing.usage_map(upload=row, user=user, columns=guess.columns, unit=guess.unit,
                              date_format=guess.date_format)  # fmt: skip
    row.refresh_from_db()
    assert row.state == "done", row.error
    return row


def _statement_text(reservation, user, period: str) -> str:
    with TestCase.captureOnCommitCallbacks(execute=True):
        job = annex_request(
            capacity_request=reservation.request, kind=AnnexKind.STATEMENT, user=user, period=period
        )
    job.refresh_from_db()
    assert job.status == "done", job.error
    annex = Annex.objects.get(pk=job.annex_id)
    with annex.pdf.open("rb") as handle:
        reader = PdfReader(io.BytesIO(handle.read()))
    return "\n".join(page.extract_text() for page in reader.pages)


def _flat(text: str) -> str:
    """The text with its line breaks as spaces: a working may wrap inside its cell."""
    return " ".join(text.split())


def _check_workings(flat: str) -> dict[str, int]:
    """Recompute every working the statement prints; how many of each kind were checked."""
    seen = {"availability": 0, "fees": 0, "credit": 0, "paid": 0, "useful": 0, "cost": 0}
    for down, sched, maint, pct in re.findall(
        rf"1 − ({NUM}) down \S+ ÷ \(({NUM}) scheduled \S+ − ({NUM}) maintenance \S+\) = ({NUM}) %",
        flat,
    ):
        worked = (1 - _d(down) / (_d(sched) - _d(maint))) * 100
        assert _round(worked, 3) == _d(pct), (down, sched, maint, pct)
        seen["availability"] += 1
    for hours, rate, fees in re.findall(rf"({NUM}) GPU-h × \$({NUM}) = \$({NUM})", flat):
        assert _round(_d(hours) * _d(rate), 2) == _d(fees)
        seen["fees"] += 1
    for fees, pct, credit in re.findall(rf"\$({NUM}) × ({NUM}) % = \$({NUM})", flat):
        assert _round(_d(fees) * _d(pct) / 100, 2) == _d(credit)
        seen["credit"] += 1
    for billed, credits, paid in re.findall(
        rf"\$({NUM}) billed − \$({NUM}) credits = \$({NUM})", flat
    ):
        assert _d(billed) - _d(credits) == _d(paid)
        seen["paid"] += 1
    for fees, extras, credits, paid in re.findall(
        rf"\$({NUM}) at the agreed rate \+ \$({NUM}) fees and egress − \$({NUM}) credits = "
        rf"\$({NUM})",
        flat,
    ):
        assert _d(fees) + _d(extras) - _d(credits) == _d(paid)
        seen["paid"] += 1
    for accepted, lost, useful in re.findall(
        rf"({NUM}) accepted − ({NUM}) lost = ({NUM}) GPU-h", flat
    ):
        assert _d(accepted) - _d(lost) == _d(useful)
        seen["useful"] += 1
    for paid, useful, cost in re.findall(
        rf"\$({NUM}) ÷ ({NUM}) useful GPU-h = \$({NUM}) / GPU-h", flat
    ):
        assert _round(_d(paid) / _d(useful), 4) == _d(cost), (paid, useful, cost)
        seen["cost"] += 1
    return seen


def _check_printing(text: str, headings: list[str]) -> None:
    flat = _flat(text)
    assert not re.search(r"(?:-|−)\s?\$\d", flat.replace("− $", "minus $")), "a negative amount"
    assert not re.search(r"\d\.\d{4,} %", flat), "a percentage printed past 3 decimals"
    for heading in headings:
        for word in re.findall(r"[A-Za-z]{2,}", heading):
            for cut in range(1, len(word)):
                broken = rf"\b{word[:cut]}\s+{word[cut:]}\b"
                assert not re.search(broken, text), f"heading word {word!r} broken in the PDF"


def _headings(reservation, period: str) -> list[str]:
    doc = statement_document(
        statement_snapshot(capacity_request=reservation.request, period=period),
        sha256="",
        version=1,
    )
    return [h for s in doc["sections"] for b in s["blocks"] for h in b.get("head", [])]


def test_the_statement_adds_up_when_the_credits_exceed_the_bill(buyer, provider):
    reservation = build(buyer, provider)
    _reconcile(reservation, provider.user, SMALL_BILL)
    text = _statement_text(reservation, buyer.user, "2026-03")
    flat = _flat(text)
    seen = _check_workings(flat)
    assert seen["availability"] == 1 and seen["fees"] == 1 and seen["credit"] == 1
    assert seen["paid"] == 1 and seen["useful"] == 1 and seen["cost"] == 1
    _check_printing(text, _headings(reservation, "2026-03"))
    # The credits the incidents earn are applied up to the bill, and the working says why.
    assert "more than the 100 % of the $760.00 billed" in flat
    assert "check the incidents of 2026-01, 2026-02" in flat
    assert "$760.00 billed − $760.00 credits = $0.00" in flat
    assert "$0.00 ÷ 68,784.00 useful GPU-h = $0.0000 / GPU-h" in flat
    # The bill's own row leaves nothing to pay on it, and names what to check.
    assert "exceed the $760.00 this bill allows" in flat


def test_the_realised_cost_and_its_working_come_from_one_report(buyer, provider):
    reservation = build(buyer, provider)
    text = _statement_text(reservation, provider.user, "2026-01")
    flat = _flat(text)
    seen = _check_workings(flat)
    assert seen["availability"] == 1 and seen["credit"] == 1 and seen["cost"] == 1
    assert seen["paid"] == 1 and seen["useful"] == 1
    _check_printing(text, _headings(reservation, "2026-01"))
    # January at the agreed rate: fees, prorated fees and egress, less the credit.
    working = re.search(rf"\$({NUM}) ÷ ({NUM}) useful GPU-h = \$({NUM}) / GPU-h", flat)
    assert working is not None
    paid, useful, cost = working.groups()
    assert re.search(rf"Useful GPU-hours to date {useful}\b", flat)
    assert re.search(rf"Realised \(USD per useful GPU-hour\) \${cost}\b", flat)
    assert re.search(rf"Paid after credits \(USD\) \${paid}\b", flat)
    assert "99.194 %" in flat and "7,142.40" in flat


def test_a_bill_reconciled_against_larger_credits_never_nets_below_zero(buyer, provider):
    reservation = build(buyer, provider)
    row = _reconcile(reservation, provider.user, SMALL_BILL)
    assert Decimal(row.totals["credits"]) > Decimal(row.totals["allowed"])
    assert Decimal(row.totals["net"]) == 0
