"""Run in a virtualenv holding requirements.txt only, as the production image does.

Imports every module of the product (tests and benchmarks aside), then migrates a fresh
database, seeds the demo and renders the awarded request's contract annex and the delivery demo's
first monthly statement, and checks that the bytes are a PDF of at least one page each.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SKIP = {"tests", "bench", ".venv", ".ci", "staticfiles", "media", "node_modules"}
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()


def modules() -> list[str]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in SKIP or ("bundle" in rel.parts and "files" in rel.parts):
            continue
        if len(rel.parts) == 1 and rel.name != "manage.py":
            continue
        if rel.name == "manage.py":
            continue
        name = ".".join(rel.with_suffix("").parts)
        found.append(name.removesuffix(".__init__"))
    return found


def main() -> None:
    names = modules()
    for name in names:
        importlib.import_module(name)
    print(f"imported {len(names)} modules with the runtime requirements only")

    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115

    from annexes.models import AnnexKind
    from annexes.services import annex_request, pdf_page_count
    from bids.choices import RequestStatus
    from bids.models import CapacityRequest
    from demo.delivery import DEMO_TITLE

    awarded = CapacityRequest.objects.filter(status=RequestStatus.AWARDED).order_by("pk")
    delivered = awarded.get(title=DEMO_TITLE)
    documents = [
        (awarded.exclude(pk=delivered.pk).first(), AnnexKind.CONTRACT, ""),
        # The delivery demo's first month: delivery, billing and scorecards in one render.
        (delivered, AnnexKind.STATEMENT, delivered.reservation_start.strftime("%Y-%m")),
    ]
    for request, kind, period in documents:
        assert request is not None, f"the demo has no request for the {kind} document"
        job = annex_request(capacity_request=request, kind=kind, user=None, period=period)
        job.refresh_from_db()
        assert job.annex is not None, f"the {kind} did not render: {job.status} {job.error}"
        pdf = job.annex.pdf.read()
        assert pdf.startswith(b"%PDF-"), "not a PDF"
        print(f"rendered the {kind} document: {pdf_page_count(pdf)} pages, {len(pdf):,} bytes")


if __name__ == "__main__":
    main()
