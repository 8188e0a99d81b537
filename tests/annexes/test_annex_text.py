"""How the annex prints text it does not control: request titles in CSS, the fixture spec,
and the bundle manifest."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pypdf import PdfReader

from acceptance.bundle.build import build_bundle
from annexes.document.labels import spec_listing
from annexes.document.present import document_for
from annexes.document.render import css_string, render_html, render_pdf
from engine.evidence.fixtures import default_spec
from tests.conftest import require_service


def test_css_string_escapes_what_could_end_the_string_or_the_style_element():
    assert css_string('GPU "A" \\ B') == 'GPU \\"A\\" \\\\ B'
    assert "</style>" not in css_string("x</style><script>")
    assert css_string("two\nlines") == "two\\A lines"


def test_a_title_with_quotes_and_markup_prints_as_typed_on_every_page():
    title = 'Cluster "Ember" </style> <b>16 × H200</b> \\ phase 2'
    document = {
        "title": "Contract annex",
        "header": f"{title} · bid revision 1 · annex v1",
        "confidentiality": "Confidential: buyer and provider",
        "sha256": "0" * 64,
        "meta": [],
        "sections": [
            {"id": f"s{i}", "number": str(i), "title": f"Part {i}", "blocks": []} for i in (1, 2)
        ],
        "signatures": [],
    }
    reader = PdfReader(io.BytesIO(render_pdf(render_html(document))))
    pages = [page.extract_text() for page in reader.pages]
    assert len(pages) == 2  # the contents page, then the body
    assert all(f"{title} · bid revision 1" in text for text in pages)


def test_the_spec_listing_is_exact_and_sorted():
    spec = {
        "allocation": {"nodes": 2, "gpus": 16},
        "tests": {"nccl_tests": {"collectives": ["all_reduce", "all_gather"]}},
        "thresholds": {"dcgm_level": 3},
        "runtime": {"container_image": None, "env": {"NCCL_DEBUG": "INFO"}},
    }
    assert spec_listing(spec, ("allocation", "runtime", "tests")).splitlines() == [
        "allocation.gpus = 16",
        "allocation.nodes = 2",
        "runtime.container_image = null",
        'runtime.env.NCCL_DEBUG = "INFO"',
        'tests.nccl_tests.collectives = ["all_reduce", "all_gather"]',
    ]


def test_the_printed_manifest_checks_the_unpacked_bundle_with_sha256sum(tmp_path: Path):
    """GIVEN the bundle a provider downloads WHEN it runs `sha256sum -c` on the manifest as the
    annex prints it THEN every file checks out (and a changed file does not)."""
    require_service(bool(shutil.which("sha256sum")), "coreutils' sha256sum checks the manifest")
    spec = default_spec(gpu_model="H200", nodes=2, gpus_per_node=8)
    archive, manifest = build_bundle(spec)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(tmp_path, filter="data")
    (root,) = tmp_path.iterdir()
    snap = _minimal_snapshot(spec, manifest)
    document = document_for(snap, sha256="0" * 64, version=1)
    fixture = next(s for s in document["sections"] if s["id"] == "fixture")
    listing = next(b for b in fixture["blocks"] if b.get("heading") == "Bundle manifest")
    (tmp_path / "SHA256SUMS").write_text(listing["text"] + "\n")

    check = subprocess.run(
        ["sha256sum", "-c", str(tmp_path / "SHA256SUMS")], cwd=root, capture_output=True
    )
    assert check.returncode == 0, check.stdout + check.stderr

    first = sorted(manifest["files"])[0]
    (root / first).write_text("tampered\n")
    check = subprocess.run(
        ["sha256sum", "-c", str(tmp_path / "SHA256SUMS")], cwd=root, capture_output=True
    )
    assert check.returncode == 1 and f"{first}: FAILED".encode() in check.stdout


def _minimal_snapshot(spec: dict, manifest: dict) -> dict:
    from annexes.document.snapshot import KIND_CONTRACT

    return {
        "kind": KIND_CONTRACT,
        "request": {"title": "16 × H200", "buyer": "Helix Labs"},
        "provider": "Northwind",
        "bid_revision": {"number": 1, "submitted_at": None, "terms": {}},
        "fixture": {
            "version": 1,
            "template": "default",
            "spec_sha256": manifest["fixture_sha256"],
            "spec": spec,
            "manifest": manifest,
        },
    }


def _one_section_document(title: str, listing: str) -> dict:
    return {
        "title": "Contract annex",
        "header": f"{title} · bid revision 1 · annex v1",
        "confidentiality": "Confidential: buyer and provider",
        "sha256": "0" * 64,
        "meta": [],
        "sections": [
            {
                "id": "s1",
                "number": "1",
                "title": "Part 1",
                "blocks": [{"type": "code", "text": listing}],
            }
        ],
        "signatures": [],
    }


def _text_and_fonts(pdf: bytes) -> tuple[str, set[str]]:
    reader = PdfReader(io.BytesIO(pdf))
    fonts = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            fonts.add(str(font.get_object()["/BaseFont"]).split("+", 1)[1])
    return "\n".join(page.extract_text() for page in reader.pages), fonts


def test_pdfs_rendered_one_after_another_and_in_another_thread_print_their_own_text():
    """A worker keeps its fonts between renders: each PDF still embeds the fonts it prints in
    and none of the previous document's text, and a second thread renders on its own."""
    first, second = "Cluster Ember", "Cluster Birch"
    pdfs = [
        render_pdf(render_html(_one_section_document(first, "nodes = 2"))),
        render_pdf(render_html(_one_section_document(second, "nodes = 64"))),
    ]
    with ThreadPoolExecutor(max_workers=1) as pool:
        pdfs.append(
            pool.submit(
                lambda: render_pdf(render_html(_one_section_document(second, "nodes = 64")))
            ).result()
        )
    (text_1, fonts_1), (text_2, fonts_2), (text_3, fonts_3) = map(_text_and_fonts, pdfs)
    assert first in text_1 and "nodes = 2" in text_1 and second not in text_1
    assert second in text_2 and "nodes = 64" in text_2 and first not in text_2
    assert text_3 == text_2
    assert fonts_1 == fonts_2 == fonts_3
    assert {"DejaVu-Sans", "DejaVu-Sans-Mono"} <= {name.split("-Book")[0] for name in fonts_1}
