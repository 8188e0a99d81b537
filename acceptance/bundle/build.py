"""The runnable fixture bundle: a deterministic .tar.gz rendered from a fixture spec.

Same spec, same bytes: entries are sorted, every mtime/uid/gid is fixed and the gzip header
carries no time or name. Script sources live in `files/` beside this module (shellcheck lints
them there); values from the spec enter through `@@{name}` placeholders and `fixture.env`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import shlex
import string
import tarfile
from importlib import resources
from typing import Any

from engine.evidence.fixtures.spec import InvalidSpecError, spec_sha256
from engine.evidence.fixtures.validation import validate_spec
from engine.evidence.parsers.nvidia_smi_dmon import KIND as DMON_KIND

MANIFEST_SCHEMA = "clusterbid.bundle/1"
# The evidence upload API is built elsewhere; this is the agreed URL shape.
UPLOAD_PATH_TEMPLATE = "/api/v1/runs/{run_id}/evidence/"
FALLBACK_IMAGE = "nvcr.io/nvidia/pytorch:24.12-py3"
# 2020-01-01T00:00:00Z: a fixed, plausible mtime for every entry.
FIXED_MTIME = 1577836800

EXECUTABLES = frozenset(
    {
        "fixture_allreduce.py",
        "run_nccl_tests.sh",
        "collect_evidence.sh",
        "gpu_monitor.sh",
        "upload_evidence.sh",
        "fixture.sbatch",
    }
)
STATIC_FILES = ("run_nccl_tests.sh", "collect_evidence.sh", "gpu_monitor.sh", "upload_evidence.sh")
TEMPLATED_FILES = ("fixture_allreduce.py", "fixture.sbatch", "fixture-job.yaml", "README.md")
BUNDLE_FILES = tuple(
    sorted(
        (*STATIC_FILES, *TEMPLATED_FILES, "fixture.env", "fixture.json", "MANIFEST.json"),
    )
)


class _Template(string.Template):
    # "@@" keeps shell "${var}" and Python braces untouched.
    delimiter = "@@"


def source_text(name: str) -> str:
    """A script source as shipped in acceptance/bundle/files/."""
    return resources.files("acceptance.bundle").joinpath("files", name).read_text("utf-8")


def _render(name: str, values: dict[str, Any]) -> str:
    return _Template(source_text(name)).substitute({k: str(v) for k, v in values.items()})


def _sh(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if value is None:
        return "''"
    return shlex.quote(str(value))


def monitor_required(spec: dict[str, Any]) -> bool:
    """The fixture lists the GPU monitor's capture (nvidia-smi dmon) among required evidence."""
    return DMON_KIND in spec.get("required_evidence", ())


def render_env(spec: dict[str, Any], fixture_sha: str) -> str:
    """fixture.env: the spec's values as shell assignments, each quoted."""
    alloc, tests, th = spec["allocation"], spec["tests"], spec["thresholds"]
    nccl, fx = tests["nccl_tests"], tests["allreduce_fixture"]
    env: dict[str, str] = spec["runtime"]["env"]
    values: list[tuple[str, Any]] = [
        ("FIXTURE_SHA256", fixture_sha),
        ("FIXTURE_NAME", spec["name"]),
        ("GPU_MODEL", spec["gpu_model"]),
        ("NODES", alloc["nodes"]),
        ("GPUS_PER_NODE", alloc["gpus_per_node"]),
        ("MAX_LEAF_SWITCHES", alloc["max_leaf_switches"]),
        ("FIXTURE_COUNT", fx["count"]),
        ("FIXTURE_DTYPE", fx["dtype"]),
        ("COLLECTIVES", " ".join(nccl["collectives"])),
        ("MIN_BYTES", nccl["min_bytes"]),
        ("MAX_BYTES", nccl["max_bytes"]),
        ("STEP_FACTOR", nccl["step_factor"]),
        ("NCCL_ITERS", nccl["iterations"]),
        ("NCCL_WARMUP", nccl["warmup_iterations"]),
        ("NCCL_DATATYPE", nccl["datatype"]),
        ("NCCL_CHECK", nccl["check"]),
        ("PER_NODE", nccl["per_node"]),
        ("BISECTION", tests["bisection"]),
        ("DCGM_LEVEL", th["dcgm_level"]),
        # The GPU monitor's message when it cannot run says whether the fixture requires it.
        ("GPU_MONITOR_REQUIRED", monitor_required(spec)),
        ("EVIDENCE_UPLOAD_PATH", UPLOAD_PATH_TEMPLATE),
        ("RUNTIME_ENV_NAMES", " ".join(sorted(env))),
    ]
    lines = [
        "# shellcheck shell=bash",
        "# shellcheck disable=SC2034  # read by the scripts that source this file",
        f"# Clusterbid fixture {fixture_sha}: values rendered from fixture.json.",
        *(f"{name}={_sh(value)}" for name, value in values),
        "# Environment the agreed runtime requires (runtime.env).",
        *(f"export {name}={_sh(env[name])}" for name in sorted(env)),
        "# The agreed node runtime (fixture.json's runtime): each node compares what it reads on",
        "# itself with these before the workers start (fixture_allreduce.py --node-facts).",
        *(f"export {name}={_sh(value)}" for name, value in agreed_node_runtime(spec)),
    ]
    return "\n".join(lines) + "\n"


# The node runtime the fixture agrees, by the variable the launch files export it as. Only the
# agreed value travels from the spec: what a node ran is read on the node (CLUSTERBID_OS_IMAGE
# and the others, exported by `fixture_allreduce.py --node-facts`), so the checks compare the
# two instead of the spec with itself.
AGREED_NODE_RUNTIME = (
    ("CLUSTERBID_AGREED_OS_IMAGE", "os_image"),
    ("CLUSTERBID_AGREED_KUBERNETES_VERSION", "kubernetes_version"),
    ("CLUSTERBID_AGREED_WORKER_NODE_SPEC", "worker_node_spec"),
)


def agreed_node_runtime(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """(variable, agreed value) for each node runtime value the spec agrees."""
    runtime = spec["runtime"]
    return [(var, str(runtime[key])) for var, key in AGREED_NODE_RUNTIME if runtime.get(key)]


def _yaml_env_items(spec: dict[str, Any], fixture_sha: str) -> str:
    pairs = [("CLUSTERBID_FIXTURE_SHA256", fixture_sha)]
    pairs += sorted(spec["runtime"]["env"].items())
    pairs += agreed_node_runtime(spec)
    indent = " " * 12
    # A JSON string is a valid YAML double-quoted scalar.
    items = [
        f"{indent}- name: {name}\n{indent}  value: {json.dumps(value)}" for name, value in pairs
    ]
    # The pod's node, for --node-facts to read its Node object.
    items.append(
        f"{indent}- name: NODE_NAME\n{indent}  valueFrom:\n"
        f"{indent}    fieldRef:\n{indent}      fieldPath: spec.nodeName"
    )
    return "\n".join(items)


def _indent_block(text: str, spaces: int) -> str:
    pad = " " * spaces
    return "\n".join(pad + line if line else "" for line in text.rstrip("\n").split("\n"))


def render_files(spec: dict[str, Any]) -> dict[str, bytes]:
    """Every bundle file except MANIFEST.json, rendered from a valid spec."""
    fixture_sha = spec_sha256(spec)
    alloc, tests, th = spec["allocation"], spec["tests"], spec["thresholds"]
    nccl, fx = tests["nccl_tests"], tests["allreduce_fixture"]
    gpus = alloc["nodes"] * alloc["gpus_per_node"]
    switches = alloc["max_leaf_switches"]
    extra_runs = []
    if nccl["per_node"]:
        extra_runs.append("; each node alone (`nccl_<collective>_<node>.log`)")
    if tests["bisection"]:
        extra_runs.append("; every node pair (`nccl_<collective>_<nodeA>+<nodeB>.log`)")
    values: dict[str, Any] = {
        "name": spec["name"],
        "schema": spec["schema"],
        "version": spec["version"],
        "gpu_model": spec["gpu_model"],
        "fixture_sha256": fixture_sha,
        "nodes": alloc["nodes"],
        "last_node": alloc["nodes"] - 1,
        "gpus_per_node": alloc["gpus_per_node"],
        "gpus": gpus,
        "count": fx["count"],
        "dtype": fx["dtype"],
        "iterations": fx["iterations"],
        "check_iterations": fx["check_iterations"],
        "expected": gpus * (gpus - 1) // 2,
        "collectives": ", ".join(nccl["collectives"]),
        "min_bytes": nccl["min_bytes"],
        "max_bytes": nccl["max_bytes"],
        "step_factor": nccl["step_factor"],
        "extra_runs": "".join(extra_runs),
        "dcgm_level": th["dcgm_level"],
        "monitor_required": (
            "; this fixture requires the capture: a node without one shows it missing"
            if monitor_required(spec)
            else ""
        ),
        "upload_path": UPLOAD_PATH_TEMPLATE.format(run_id="<run_id>"),
        "image": spec["runtime"]["container_image"] or FALLBACK_IMAGE,
        "env_items": _yaml_env_items(spec, fixture_sha),
        "switches_directive": (
            f"SBATCH --switches={switches}"
            if switches
            else " (no --switches: the fixture sets no leaf-switch limit)"
        ),
    }
    files: dict[str, str] = {name: source_text(name) for name in STATIC_FILES}
    script = _render("fixture_allreduce.py", values)
    files["fixture_allreduce.py"] = script
    files["fixture-job.yaml"] = _render(
        "fixture-job.yaml", {**values, "fixture_script": _indent_block(script, 4)}
    )
    files["fixture.sbatch"] = _render("fixture.sbatch", values)
    files["README.md"] = _render("README.md", values)
    files["fixture.env"] = render_env(spec, fixture_sha)
    files["fixture.json"] = json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return {name: text.encode("utf-8") for name, text in files.items()}


def bundle_root(spec: dict[str, Any]) -> str:
    """The folder the archive unpacks into."""
    return f"clusterbid-fixture-{spec_sha256(spec)[:12]}"


def _tar_entry(name: str, data: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = FIXED_MTIME
    info.mode = 0o755 if name.rsplit("/", 1)[-1] in EXECUTABLES else 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def build_bundle(spec: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The .tar.gz bytes and the manifest for a valid spec (InvalidSpecError otherwise)."""
    errors = validate_spec(spec)
    if errors:
        raise InvalidSpecError(errors)
    files = render_files(spec)
    manifest: dict[str, Any] = {
        "schema": MANIFEST_SCHEMA,
        "fixture_sha256": spec_sha256(spec),
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    files["MANIFEST.json"] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    root = bundle_root(spec)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        folder = tarfile.TarInfo(root)
        folder.type = tarfile.DIRTYPE
        folder.mode = 0o755
        folder.mtime = FIXED_MTIME
        folder.uname = folder.gname = ""
        tar.addfile(folder)
        for name in sorted(files):
            data = files[name]
            tar.addfile(_tar_entry(f"{root}/{name}", data), io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0, compresslevel=9) as gz:
        gz.write(raw.getvalue())
    return out.getvalue(), manifest
