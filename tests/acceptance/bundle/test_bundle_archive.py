"""The bundle archive: deterministic bytes, a manifest that matches, every file present."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from typing import Any

import pytest

from acceptance.bundle import BUNDLE_FILES, MANIFEST_SCHEMA, build_bundle, bundle_root
from engine.evidence.fixtures import InvalidSpecError, apply_override, default_spec, spec_sha256


def members(data: bytes) -> dict[str, bytes]:
    out = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for info in tar.getmembers():
            if info.isfile():
                extracted = tar.extractfile(info)
                assert extracted is not None
                out[info.name] = extracted.read()
    return out


def test_same_spec_gives_the_same_bytes(spec: dict[str, Any]) -> None:
    first, manifest = build_bundle(spec)
    second, again = build_bundle(json.loads(json.dumps(spec)))
    assert first == second
    assert manifest == again
    assert first[4:8] == b"\x00\x00\x00\x00"  # gzip mtime 0
    assert gzip.decompress(first)  # a plain gzip stream


def test_a_different_spec_gives_different_bytes(spec: dict[str, Any]) -> None:
    changed = apply_override(
        spec, field="thresholds.dcgm_level", value=4, reason="longer", by="a", at="2026-01-01"
    )
    assert build_bundle(changed)[0] != build_bundle(spec)[0]


def test_entries_are_sorted_with_fixed_metadata(spec: dict[str, Any]) -> None:
    data, _ = build_bundle(spec)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        infos = tar.getmembers()
    root = bundle_root(spec)
    assert infos[0].name == root and infos[0].isdir()
    names = [i.name for i in infos[1:]]
    assert names == sorted(names)
    assert names == [f"{root}/{n}" for n in BUNDLE_FILES]
    for info in infos:
        assert info.mtime == infos[0].mtime
        assert (info.uid, info.gid, info.uname, info.gname) == (0, 0, "", "")
    modes = {i.name.rsplit("/", 1)[-1]: i.mode for i in infos[1:]}
    assert modes["run_nccl_tests.sh"] == 0o755
    assert modes["fixture.json"] == 0o644


def test_manifest_hashes_match_the_contents(spec: dict[str, Any]) -> None:
    data, manifest = build_bundle(spec)
    files = members(data)
    root = bundle_root(spec)
    assert json.loads(files[f"{root}/MANIFEST.json"]) == manifest
    assert manifest["schema"] == MANIFEST_SCHEMA
    assert manifest["fixture_sha256"] == spec_sha256(spec)
    assert set(manifest["files"]) == set(BUNDLE_FILES) - {"MANIFEST.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256(files[f"{root}/{name}"]).hexdigest() == digest, name
    assert json.loads(files[f"{root}/fixture.json"]) == spec


def test_every_file_is_present_and_rendered(spec: dict[str, Any]) -> None:
    files = members(build_bundle(spec)[0])
    root = bundle_root(spec)
    for name in BUNDLE_FILES:
        text = files[f"{root}/{name}"].decode()
        assert text.strip(), name
        assert "@@{" not in text, f"unrendered placeholder in {name}"
    sbatch = files[f"{root}/fixture.sbatch"].decode()
    assert "#SBATCH --nodes=3" in sbatch
    assert "#SBATCH --gpus-per-node=8" in sbatch
    assert "#SBATCH --switches=1" in sbatch
    readme = files[f"{root}/README.md"].decode()
    assert (
        'curl -F file=@evidence/node-a/ibstat.txt -F node=node-a -H "Authorization: Token '
        '$CLUSTERBID_TOKEN" $CLUSTERBID_URL/api/v1/runs/<run_id>/evidence/'
    ) in readme
    env = files[f"{root}/fixture.env"].decode()
    assert "BISECTION=1" in env and "NODES=3" in env
    assert "COLLECTIVES='all_reduce alltoall'" in env


def test_no_switches_line_without_a_placement_limit() -> None:
    spec = default_spec(gpu_model="A100", nodes=2, gpus_per_node=8, fabric=None)
    files = members(build_bundle(spec)[0])
    sbatch = files[f"{bundle_root(spec)}/fixture.sbatch"].decode()
    assert "--switches" not in sbatch.replace("no --switches", "")


def test_it_refuses_an_invalid_spec(spec: dict[str, Any]) -> None:
    spec["tests"]["nccl_tests"]["step_factor"] = 1
    with pytest.raises(InvalidSpecError, match="step_factor"):
        build_bundle(spec)


def test_no_secret_is_baked_in(spec: dict[str, Any]) -> None:
    for name, data in members(build_bundle(spec)[0]).items():
        text = data.decode()
        assert (
            "Token $CLUSTERBID_TOKEN" in text
            or "CLUSTERBID_TOKEN}" in text
            or ("Authorization" not in text)
            # The fixture's Node read: the pod's own service-account token, mounted at run time.
            or (
                '"Authorization": f"Bearer {token}"' in text
                and "/var/run/secrets/kubernetes.io/serviceaccount" in text
            )
        ), name
