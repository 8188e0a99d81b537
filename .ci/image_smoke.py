"""The API half of .ci/image-smoke: the image's web answers healthy, and an annex requested
through the API is rendered by the image's worker into a PDF whose SHA-256 the API reports.

Standard library only: it runs with the host's python3 against the containers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any


def call(base: str, path: str, token: str = "", body: dict[str, Any] | None = None) -> Any:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    req = urllib.request.Request(base + path, data=data, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as response:
        raw = response.read()
    return raw if path.endswith("/pdf/") else json.loads(raw)


def healthy(base: str, seconds: float = 120) -> dict[str, Any]:
    deadline, last = time.monotonic() + seconds, "no answer"
    while time.monotonic() < deadline:
        try:
            body: dict[str, Any] = call(base, "/healthz")
            return body
        except urllib.error.HTTPError as exc:
            last = exc.read().decode(errors="replace")
        except OSError as exc:
            last = str(exc)
        time.sleep(2)
    sys.exit(f"image smoke: /healthz never answered 200 within {seconds:.0f} s: {last}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--token", required=True)
    args = ap.parse_args()
    health = healthy(args.base)
    print(f"/healthz: {health}")
    listed = call(args.base, "/api/v1/requests/?status=awarded", args.token)
    if not listed["results"]:
        sys.exit("image smoke: the demo has no awarded request")
    request_id = listed["results"][0]["id"]
    job = call(
        args.base, f"/api/v1/requests/{request_id}/annexes/", args.token, {"kind": "contract"}
    )
    deadline = time.monotonic() + 180
    while job["status"] not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(2)
        job = call(args.base, f"/api/v1/annex-jobs/{job['id']}/", args.token)
    if job["status"] != "done":
        sys.exit(f"image smoke: the annex did not render: {job}")
    annex = job["annex"]
    pdf = call(args.base, f"/api/v1/annexes/{annex['id']}/pdf/", args.token)
    digest = hashlib.sha256(pdf).hexdigest()
    if not pdf.startswith(b"%PDF-") or digest != annex["pdf_sha256"]:
        sys.exit(f"image smoke: PDF {digest} does not match the API's {annex['pdf_sha256']}")
    print(
        f"annex rendered by the image's worker: {len(pdf):,} bytes, SHA-256 {digest}, as reported"
    )


if __name__ == "__main__":
    main()
