"""Checkpoint evidence: from a listing of the job's checkpoint directories to the newest checkpoint
that looks complete and resumable, and the steps a rewind to it costs.

Accepted listings: `find` output (plain paths, `-ls`, or `-printf '%s %p'`), `ls -lR`,
`sha256sum` lines, `head` of the pointer files (`==> latest <==` then its text), and JSON (a list
of files, or `{"files": [...]}` / `{"checkpoints": [...]}`, each file with `path`/`name`, `size`,
`sha256`, `mtime` and, for pointer files, `content`).

Completion is judged from the framework's own markers, never from the newest timestamp:
torch.distributed.checkpoint writes `.metadata` last; DeepSpeed writes `latest` (the tag) after
every rank saved; Megatron writes `latest_checkpointed_iteration.txt`; HF Trainer writes
`trainer_state.json`; many loops write `metadata.json`. When none of these can speak for the
newest checkpoint, the verdict is "inconclusive".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from .errors import FailureInputError

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
_STEP_DIR = re.compile(
    r"^(?:global_step|checkpoint[-_]|iter_|step[-_]?|ckpt[-_]|epoch[-_]?\d+[-_]step[-_]?)(\d+)$",
    re.I,
)
_POINTERS = {"latest", "latest_checkpointed_iteration.txt", "latest_checkpoint", "last"}
_DONE_MARKERS = {".metadata", "metadata.json", "trainer_state.json", "complete", ".complete",
                 "commit_success.txt", "_success"}  # fmt: skip
_PARTIAL = re.compile(r"\.(tmp|partial|incomplete|inprogress|lock)$|^tmp[-_.]", re.I)
_SHA_LINE = re.compile(r"^([0-9a-f]{64})\s+\*?(.+)$")
_LS_LINE = re.compile(
    r"^([-dlcbps])[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+)\s+"
    r"(\w{3}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})|\d{4}-\d{2}-\d{2}\s+\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
    r"(?:\s+[+-]\d{4})?)\s+(.+)$"
)
_FIND_LS = re.compile(r"^\s*\d+\s+\d+\s+([-dl])[rwxsStT-]{9}\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\S+\s+"
                      r"\S+\s+\S+\s+(.+)$")  # fmt: skip
_HEAD = re.compile(r"^==> (.+) <==$")
_SIZE_PATH = re.compile(r"^(\d+)\s+(/?\S.*)$")


@dataclass(frozen=True, slots=True)
class ListedFile:
    path: str
    size: int | None = None
    sha256: str | None = None
    content: str | None = None  # a pointer file's text when the listing gives it
    link_target: str | None = None


@dataclass(slots=True)
class Checkpoint:
    name: str
    path: str
    step: int
    files: list[ListedFile] = field(default_factory=list)
    status: str = "unknown"  # complete | incomplete | unknown
    reasons: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(f.size or 0 for f in self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "path": self.path, "step": self.step, "status": self.status,
            "reasons": self.reasons, "files": len(self.files), "bytes": self.size,
            "sha256_given": sum(1 for f in self.files if f.sha256),
        }  # fmt: skip


@dataclass(slots=True)
class CheckpointVerdict:
    status: str  # complete | inconclusive | none
    checkpoint: Checkpoint | None
    rewind_steps: int | None
    failing_step: int | None
    reasons: list[str]
    checkpoints: list[Checkpoint]

    def to_json(self) -> dict[str, Any]:
        c = self.checkpoint
        return {
            "status": self.status,
            "checkpoint": c.name if c else None,
            "checkpoint_path": c.path if c else None,
            "step": c.step if c else None,
            "rewind_steps": self.rewind_steps,
            "failing_step": self.failing_step,
            "reasons": self.reasons,
            "checkpoints": [x.to_json() for x in self.checkpoints],
        }


def parse_listing(data: bytes | str, *, name: str = "listing") -> list[ListedFile]:
    """Files named by a listing, in any of the accepted formats."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    stripped = text.lstrip("\ufeff \n\t")
    if not stripped:
        raise FailureInputError(f"{name}: the checkpoint listing is empty")
    if stripped[0] in "[{":
        try:
            doc = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise FailureInputError(
                f"{name}: invalid JSON at line {exc.lineno}: {exc.msg}"
            ) from None
        files = _from_json(doc, name=name)
    else:
        files = _from_text(text)
    if not files:
        raise FailureInputError(f"{name}: no files found; expected find, ls -lR or JSON output")
    return files


def _from_json(doc: Any, *, name: str, prefix: str = "") -> list[ListedFile]:
    if isinstance(doc, Mapping):
        for key in ("files", "checkpoints", "entries"):
            if isinstance(doc.get(key), list):
                base = str(doc.get("root") or doc.get("path") or "") if key == "files" else ""
                return _from_json(doc[key], name=name, prefix=base or prefix)
        raise FailureInputError(f"{name}: JSON listing needs a list of files")
    if not isinstance(doc, list):
        raise FailureInputError(f"{name}: JSON listing needs a list of files")
    out: list[ListedFile] = []
    for i, item in enumerate(doc):
        if isinstance(item, str):
            out.append(ListedFile(_join(prefix, item)))
            continue
        if not isinstance(item, Mapping):
            raise FailureInputError(f"{name}: entry {i} is neither a path nor an object")
        path = item.get("path") or item.get("name")
        if not isinstance(path, str) or not path:
            raise FailureInputError(f"{name}: entry {i} has no path or name")
        if isinstance(item.get("files"), list):  # a checkpoint directory with its files
            out += _from_json(item["files"], name=name, prefix=_join(prefix, path))
            continue
        size = item.get("size", item.get("bytes"))
        if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
            raise FailureInputError(f"{name}: entry {i} ({path}) has an invalid size")
        sha = item.get("sha256")
        content = item.get("content")
        out.append(
            ListedFile(
                _join(prefix, path),
                size,
                sha.lower() if isinstance(sha, str) else None,
                content.strip() if isinstance(content, str) else None,
            )
        )
    return out


def _join(prefix: str, path: str) -> str:
    return str(PurePosixPath(prefix) / path) if prefix else path


def _from_text(text: str) -> list[ListedFile]:
    out: list[ListedFile] = []
    directory = ""
    showing: str | None = None  # `head FILE…` prints `==> FILE <==` before each file's text
    for raw in text.splitlines():
        line = raw.rstrip()
        if showing is not None and line:
            out.append(ListedFile(showing, content=line.strip()))
            showing = None
            continue
        if m := _HEAD.match(line):
            showing = m.group(1).strip()
            continue
        if not line or line.startswith(("total ", "#")):
            continue
        if line.endswith(":") and " " not in line.strip()[:-1]:
            directory = line[:-1].strip()  # `ls -lR` section header
            continue
        if m := _SHA_LINE.match(line):
            out.append(ListedFile(m.group(2).strip(), sha256=m.group(1)))
        elif m := _FIND_LS.match(line):
            out += _entry(m.group(1), int(m.group(2)), m.group(3), "")
        elif m := _LS_LINE.match(line):
            out += _entry(m.group(1), int(m.group(2)), m.group(4), directory)
        elif m := _SIZE_PATH.match(line):
            out.append(ListedFile(m.group(2).strip(), int(m.group(1))))
        elif not line.startswith(("d", "l")) or "/" in line:
            out.append(ListedFile(line.strip()))  # plain `find` path
    return _merge(out)


def _entry(kind: str, size: int, rest: str, directory: str) -> list[ListedFile]:
    if kind == "d":
        return []
    target = None
    if kind == "l" and " -> " in rest:
        rest, target = rest.split(" -> ", 1)
    return [ListedFile(_join(directory, rest.strip()), size, link_target=target)]


def _merge(files: list[ListedFile]) -> list[ListedFile]:
    """`sha256sum` and `ls` output for the same file in one listing become one entry."""
    by_path: dict[str, ListedFile] = {}
    for f in files:
        key = f.path.removeprefix("./")
        old = by_path.get(key)
        by_path[key] = (
            ListedFile(
                key,
                f.size if f.size is not None else old.size,
                f.sha256 or old.sha256,
                f.content or old.content,
                f.link_target or old.link_target,
            )
            if old
            else ListedFile(key, f.size, f.sha256, f.content, f.link_target)
        )
    return list(by_path.values())


def _group(files: list[ListedFile]) -> tuple[dict[str, Checkpoint], list[ListedFile]]:
    checkpoints: dict[str, Checkpoint] = {}
    others: list[ListedFile] = []
    for f in files:
        parts = PurePosixPath(f.path).parts
        for i, part in enumerate(parts[:-1]):
            if m := _STEP_DIR.match(part):
                path = str(PurePosixPath(*parts[: i + 1]))
                ckpt = checkpoints.setdefault(path, Checkpoint(part, path, int(m.group(1))))
                ckpt.files.append(f)
                break
        else:
            others.append(f)
    return checkpoints, others


def _pointers(others: list[ListedFile]) -> tuple[list[str], list[str]]:
    """Pointer targets (tags or iterations) and pointers whose content the listing lacks."""
    targets: list[str] = []
    unread: list[str] = []
    for f in others:
        if PurePosixPath(f.path).name.lower() not in _POINTERS:
            continue
        value = f.link_target or f.content
        if value:
            targets.append(PurePosixPath(value.strip()).name)
        else:
            unread.append(f.path)
    return targets, unread


def _judge(ckpt: Checkpoint, pointed: bool) -> None:
    names = {PurePosixPath(f.path).name.lower() for f in ckpt.files}
    bad = [f for f in ckpt.files if _PARTIAL.search(PurePosixPath(f.path).name)]
    empty = [
        f
        for f in ckpt.files
        if (f.size == 0 or f.sha256 == EMPTY_SHA256)
        and PurePosixPath(f.path).name.lower() not in _DONE_MARKERS
    ]
    if bad:
        ckpt.status = "incomplete"
        ckpt.reasons.append(f"unfinished write: {PurePosixPath(bad[0].path).name}")
        return
    if empty:
        ckpt.status = "incomplete"
        ckpt.reasons.append(f"{len(empty)} empty file(s), e.g. {PurePosixPath(empty[0].path).name}")
        return
    distcp = any(n.endswith(".distcp") for n in names)
    if distcp and ".metadata" not in names:
        ckpt.status = "incomplete"
        ckpt.reasons.append("torch.distributed.checkpoint shards without .metadata (written last)")
        return
    markers = sorted(names & _DONE_MARKERS)
    if markers:
        ckpt.status = "complete"
        ckpt.reasons.append(f"completion marker {markers[0]}")
    if pointed:
        ckpt.status = "complete"
        ckpt.reasons.append("named by the latest pointer")


def _step_of_target(target: str, checkpoints: dict[str, Checkpoint]) -> Checkpoint | None:
    for c in checkpoints.values():
        if c.name == target:
            return c
    if target.isdigit():
        return next((c for c in checkpoints.values() if c.step == int(target)), None)
    m = _STEP_DIR.match(target)
    step = int(m.group(1)) if m else None
    return next((c for c in checkpoints.values() if c.step == step), None)


def assess_checkpoints(
    files: list[ListedFile], *, failing_step: int | None = None
) -> CheckpointVerdict:
    """The newest checkpoint that looks complete and resumable, and what rewinding to it costs."""
    checkpoints, others = _group(files)
    ordered = sorted(checkpoints.values(), key=lambda c: (c.step, c.path), reverse=True)
    if not ordered:
        return CheckpointVerdict(
            "none", None, None, failing_step,
            ["no checkpoint directories found (expected names such as global_step1200, "
             "checkpoint-1200, iter_0001200 or step_1200)"], [],
        )  # fmt: skip
    targets, unread = _pointers(others)
    pointed, reasons = _pointed(targets, checkpoints)
    pointer_step = max((checkpoints[p].step for p in pointed), default=None)
    for c in ordered:
        _judge(c, c.path in pointed)
        if c.status == "unknown" and pointer_step is not None and c.step > pointer_step:
            c.status = "incomplete"
            c.reasons.append("newer than the checkpoint the latest pointer names: not finished")
    if unread:
        reasons.append(
            f"{unread[0]} exists but the listing does not give its content; "
            "add it (`head latest`) or a JSON `content` field"
        )
    newest_complete = next((c for c in ordered if c.status == "complete"), None)
    unknown_newer = [
        c for c in ordered if c.status == "unknown" and
        (newest_complete is None or c.step > newest_complete.step)
    ]  # fmt: skip
    for c in ordered:
        if c.status == "unknown":
            c.reasons.append("no completion marker this listing can show")
    status = "complete" if newest_complete and not unknown_newer else "inconclusive"
    if newest_complete is None and not unknown_newer:
        status = "none"
        reasons.append("every checkpoint in the listing is incomplete")
    if unknown_newer:
        names = ", ".join(c.name for c in unknown_newer[:3])
        reasons.append(
            f"cannot judge whether {names} finished writing; the newest timestamp is not proof"
        )
    if newest_complete is not None:
        reasons.insert(0, f"{newest_complete.name} (step {newest_complete.step}) looks complete: "
                       + "; ".join(newest_complete.reasons))  # fmt: skip
    rewind, said = _rewind(newest_complete, failing_step)
    reasons += said
    return CheckpointVerdict(status, newest_complete, rewind, failing_step, reasons, ordered)


def _pointed(targets: list[str], checkpoints: dict[str, Checkpoint]) -> tuple[set[str], list[str]]:
    """The paths of the checkpoints the latest pointers name, and the pointers that name none."""
    pointed: set[str] = set()
    reasons: list[str] = []
    for t in targets:
        hit = _step_of_target(t, checkpoints)
        if hit is None:
            reasons.append(f"the latest pointer names {t}, which is not in the listing")
        else:
            pointed.add(hit.path)
    return pointed, reasons


def _rewind(newest: Checkpoint | None, failing_step: int | None) -> tuple[int | None, list[str]]:
    """Steps lost by resuming from `newest`; a failing step before it is a reason, not a rewind."""
    if newest is None or failing_step is None:
        return None, []
    if failing_step < newest.step:
        return None, [
            f"the failing step {failing_step} is before the checkpoint's step "
            f"{newest.step}; check the step numbers"
        ]
    return failing_step - newest.step, []
