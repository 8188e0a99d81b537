"""Findings on a run's evidence as a whole: files reused under another node's label, one GPU in
two nodes, hardware that is not the contract's, a file collected on another host than its label.

Pure Python over the run's evidence items (no Django). Each finding becomes a failing, mandatory
check row in the group of the evidence it rests on, so it blocks that check and the gate. The
buyer may explain a finding away (acceptance.services.findings): an explanation holds while the
files the finding rests on are the same (its `fingerprint`); new files make it stale.

The whole-allocation label ("") is left out of the reuse findings: a file uploaded once for the
whole allocation and again for one node is the same run seen at two scopes (a one-node
allocation, or an srun query of every GPU), never one node's output standing in for another's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.evidence.checks.hardware import _model_matches
from engine.evidence.checks.model import GROUP_BY_KIND, CheckResult, EvidenceItem
from engine.evidence.checks.spec import Spec
from engine.evidence.parsers.header import host_matches
from engine.evidence.parsers.nccl_model import NcclTestsResult
from engine.evidence.parsers.nvidia_smi_query import GpuQueryResult
from engine.evidence.parsers.nvidia_smi_topo import TopoResult


@dataclass(frozen=True)
class Finding:
    key: str  # what the finding is about, stable across re-checks ("same-file:<sha256>")
    kind: str  # the evidence kind whose check it blocks
    title: str
    message: str  # a plain sentence, shown beside the files
    measured: str
    expected: str
    refs: tuple[str, ...]  # the files it rests on (EvidenceItem.ref)
    fingerprint: str  # those files' labels and SHA-256s: an explanation holds while they do


@dataclass(frozen=True)
class Explanation:
    """The buyer's reason for a finding, as recorded (`by` names the person)."""

    key: str
    fingerprint: str
    reason: str
    by: str


def _name(item: EvidenceItem) -> str:
    return item.name or item.ref


def _fingerprint(items: Iterable[EvidenceItem]) -> str:
    return ";".join(sorted({f"{i.node or ''}={i.sha256 or i.ref}" for i in items}))


def _labelled(items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    return [i for i in items if i.node]


def _joined(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def same_files(items: Sequence[EvidenceItem]) -> list[Finding]:
    """The same bytes (SHA-256) under two or more node labels."""
    by_sha: dict[str, list[EvidenceItem]] = {}
    for item in _labelled(items):
        if item.sha256:
            by_sha.setdefault(item.sha256, []).append(item)
    out = []
    for sha, group in by_sha.items():
        labels = list(dict.fromkeys(str(i.node) for i in group))
        if len(labels) < 2:
            continue
        first, copies = labels[0], labels[1:]
        name = _name(next(i for i in group if i.node == copies[0]))
        out.append(
            Finding(
                key=f"same-file:{sha}",
                kind=group[0].kind,
                title=f"same file for {_joined(labels)}",
                message=(
                    f"{name} for {_joined(copies)} is byte-identical to {first}'s "
                    f"(SHA-256 {sha[:4]}…): one node's output cannot stand for another's."
                ),
                measured=f"SHA-256 {sha[:12]}… under {len(labels)} node labels",
                expected="a file of each node's own",
                refs=tuple(i.ref for i in group),
                fingerprint=_fingerprint(group),
            )
        )
    return out


GPU_IDS = (("uuid", "UUID"), ("serial", "serial number"))


def same_gpus(items: Sequence[EvidenceItem]) -> list[Finding]:
    """One GPU UUID or serial in the files of two node labels (byte-identical files aside:
    `same_files` already names those)."""
    seen: dict[tuple[str, str], list[EvidenceItem]] = {}
    for item in _labelled(items):
        if not isinstance(item.parsed, GpuQueryResult):
            continue
        for gpu in item.parsed.gpus:
            for key, _ in GPU_IDS:
                value = str(gpu.get(key) or "").strip()
                if value:
                    holders = seen.setdefault((key, value), [])
                    if all(h.ref != item.ref for h in holders):
                        holders.append(item)
    # One finding per set of node labels sharing GPUs, listing how many and the first id.
    shared: dict[tuple[str, ...], list[tuple[str, str, list[EvidenceItem]]]] = {}
    for (key, value), holders in seen.items():
        labels = tuple(dict.fromkeys(str(i.node) for i in holders))
        if len(labels) < 2 or len({i.sha256 for i in holders if i.sha256}) == 1:
            continue
        shared.setdefault(labels, []).append((key, value, holders))
    out = []
    for labels, ids in shared.items():
        files = list({i.ref: i for _, _, holders in ids for i in holders}.values())
        key, value, _ = ids[0]
        what = dict(GPU_IDS)[key]
        more = f" and {len(ids) - 1} more GPU id(s)" if len(ids) > 1 else ""
        out.append(
            Finding(
                key=f"same-gpu:{'+'.join(labels)}",
                kind=files[0].kind,
                title=f"same GPU in {_joined(list(labels))}",
                message=(
                    f"GPU {what} {value}{more} appear(s) in the files of {_joined(list(labels))} "
                    f"({', '.join(_name(i) for i in files)}): one GPU cannot sit in two nodes."
                ),
                measured=f"{len(ids)} GPU id(s) under {len(labels)} node labels",
                expected="each node's own GPUs",
                refs=tuple(i.ref for i in files),
                fingerprint=_fingerprint(files),
            )
        )
    return out


def hardware(spec: Spec, items: Sequence[EvidenceItem]) -> list[Finding]:
    """GPU model or count against the contract, from files the hardware checks do not judge
    (the GPU query's own model and count checks stay where they are): the topology's GPU count
    and the GPU names on nccl-tests device lines. Same wording as the GPU query checks."""
    out = []
    for item in items:
        parsed = item.parsed
        where = item.node or "the allocation"
        if isinstance(parsed, TopoResult) and item.node and "+" not in item.node:
            count = len(parsed.gpus)
            if count != spec.gpus_per_node:
                out.append(
                    Finding(
                        key=f"gpu-count:{item.node}:{item.kind}",
                        kind=item.kind,
                        title=f"GPU count on {item.node}",
                        message=(
                            f"nvidia-smi topo on {where} lists {count} GPU(s); "
                            f"{spec.gpus_per_node} agreed."
                        ),
                        measured=f"{count} GPUs",
                        expected=f"{spec.gpus_per_node} GPUs",
                        refs=(item.ref,),
                        fingerprint=_fingerprint([item]),
                    )
                )
        if isinstance(parsed, NcclTestsResult) and spec.gpu_model:
            devices = [d for run in (parsed, *parsed.runs) for d in run.devices]
            wrong = [d for d in devices if not _model_matches(spec.gpu_model, d.name)]
            if wrong:
                out.append(
                    Finding(
                        key=f"gpu-model:{item.node or ''}:{_name(item)}",
                        kind=item.kind,
                        title=f"GPU model in {_name(item)}",
                        message=(
                            f"{len({(d.host, d.device) for d in wrong})} GPU(s) on {where} are "
                            f"not {spec.gpu_model} (nccl-tests device lines: rank {wrong[0].rank} "
                            f"on {wrong[0].host} is {wrong[0].name!r})."
                        ),
                        measured=f"rank {wrong[0].rank} is {wrong[0].name!r}",
                        expected=spec.gpu_model,
                        refs=(item.ref,),
                        fingerprint=_fingerprint([item]),
                    )
                )
    return out


def _hosts_in(item: EvidenceItem) -> tuple[str, list[str]]:
    """(where the file says it ran, the host names) from the header, else nccl device lines."""
    parsed = item.parsed
    origin = getattr(parsed, "origin", None)
    if origin is not None and origin.host:
        return "its collector header", [origin.host]
    if isinstance(parsed, NcclTestsResult):
        hosts = list(dict.fromkeys(h for run in (parsed, *parsed.runs) for h in run.nodes))
        return "its device lines", hosts
    return "", []


def hostnames(items: Sequence[EvidenceItem]) -> list[Finding]:
    """A host name inside a node-labelled file that is not a node of its label."""
    out = []
    for item in _labelled(items):
        source, hosts = _hosts_in(item)
        labels = item.nodes
        strangers = [h for h in hosts if not any(host_matches(h, label) for label in labels)]
        if not strangers:
            continue
        label = str(item.node)
        out.append(
            Finding(
                key=f"hostname:{label}:{_name(item)}",
                kind=item.kind,
                title=f"host name in {_name(item)} for {label}",
                message=(
                    f"{_name(item)} for {label} was collected on {_joined(strangers)} "
                    f"({source}), not on {_joined(list(labels))}."
                ),
                measured=f"host {_joined(strangers)}",
                expected=f"host {_joined(list(labels))}",
                refs=(item.ref,),
                fingerprint=_fingerprint([item]),
            )
        )
    return out


def evidence_findings(spec: Spec, items: Sequence[EvidenceItem]) -> list[Finding]:
    return [*same_files(items), *same_gpus(items), *hardware(spec, items), *hostnames(items)]


def finding_results(
    findings: Sequence[Finding], explanations: Mapping[str, Explanation]
) -> list[CheckResult]:
    """A blocking check row per finding; one explained for the same files warns instead."""
    out = []
    for f in findings:
        explained = explanations.get(f.key)
        current = explained is not None and explained.fingerprint == f.fingerprint
        message = f.message
        if explained is not None and current:
            message += f" Explained by {explained.by}: {explained.reason}"
        elif explained is not None:
            message += (
                " An explanation was given for earlier files; they have changed since, so it "
                "no longer applies."
            )
        out.append(
            CheckResult(
                name=f"{f.kind}: {f.title}"[:200],
                group=GROUP_BY_KIND.get(f.kind, "evidence"),
                status="warn" if current else "fail",
                measured=f.measured,
                expected=f.expected,
                evidence_ref=f.refs[0] if f.refs else None,
                line=None,
                mandatory=True,
                message=message,
                node=None,
                finding=f,
            )
        )
    return out
