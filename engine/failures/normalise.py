"""Turn one text source into Events: prefixes (rank, node, pid), timestamps, multi-line blocks.

A few `str.find` passes (`lines.ANCHORS`) find candidate lines, so a 100 MB log of INFO chatter
costs little more than reading it. Tracebacks and torchrun's ChildFailedError summary are read as
blocks; everything else is one line, one event.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from typing import Any

from . import ray_actor, ucx
from .lines import CASCADE, candidate_lines, classify
from .model import Event
from .timestamps import Year, parse_iso, parse_line_time, syslog_host

_LABEL = re.compile(r"\s*(\d{1,6}): ")
_MPI = re.compile(r"\[\d+,(\d+)\]<std(?:out|err)>:\s?")
# Ray's prefix on a worker's forwarded output: `(RayTrainWorker[rank=3] pid=4242, ip=10.0.0.5)`,
# or without the rank (`(WorkerDict pid=132181)`), when the `[rank3]:` after it gives the rank.
_RAY = re.compile(r"\([\w.]+(?:\[rank=(\d+)\])? pid=(\d+)(?:, ip=([\d.]+))?\)\s*")
_RANK = re.compile(r"\[rank(\d+)\]:\s?")
_ROLE = re.compile(r"\[(?:default|[a-z_]+?)(\d+)\]:\s?")  # torchrun --tee: [default3]: = local rank
_BRACKET_TS = re.compile(r"\[\d{4}-\d{2}-\d{2}[T ][\d:.,]+\]\s*")
# pdsh (DeepSpeed's multi-node launcher) puts `host: ` before each line. A host name here ends
# in a digit and has no dot, so exception lines (`cv2.error: …`, `RuntimeError: …`) never match.
_PDSH = re.compile(r"(?!(?:rank|task)\d|slurmstepd)([A-Za-z][\w\-]*\d): ")
# OpenMPI/UCX `[host:pid]`; UCX's `[09677202c889:5283 :0:5704]` (a container's id as its host).
_HOSTPID = re.compile(r"\[((?=[\w.\-]*[A-Za-z])[A-Za-z0-9][\w.\-]*):(\d+)(?: ?:\w+:(\d+))?\]\s")
_NCCL = re.compile(r"([A-Za-z0-9][\w.\-]*):(\d+):(\d+) \[(\d+)\] ")
_PG_RANK = re.compile(r"\[Rank (\d+)\]")
_KV_RANK = re.compile(r"\brank=(\d+)\b")
_LOCAL = re.compile(r"local_rank(?::? |=)(\d+)")  # torchrun's agent; DeepSpeed's --local_rank=0
_EXC = re.compile(r"([A-Za-z_][\w.]*)(?::\s?(.*))?$")
_ENTRY = re.compile(r"\s*\[(\d+)\]:\s*$")
_FIELD = re.compile(r"\s+(\w+)\s*:\s?(.*)$")
_SEPARATOR = re.compile(r"\s*(?:={4,}|-{4,})\s*$")
_MAX_TRACEBACK_LINES = 400


def short_node(host: str | None) -> str | None:
    """`node-17.cluster.local` → `node-17`; IP addresses stay whole."""
    if not host:
        return None
    host = host.strip().strip("[]")
    if re.fullmatch(r"[\d.]+", host):
        return host
    return host.split(".", 1)[0] or None


def split_prefixes(line: str) -> tuple[dict[str, Any], str]:
    """Launcher and logger prefixes → ({rank, local_rank, node, pid, ip}, message body)."""
    info: dict[str, Any] = {}
    body = line
    for _ in range(6):
        for pattern, key in ((_LABEL, "task"), (_MPI, "rank"), (_RANK, "rank"), (_ROLE, "local")):
            m = pattern.match(body)
            if m is not None:
                info.setdefault(key if key != "local" else "local_rank", int(m.group(1)))
                body = body[m.end() :]
                break
        else:
            m = _RAY.match(body)
            if m is not None:
                if m.group(1):
                    info.setdefault("rank", int(m.group(1)))
                info["pid"] = int(m.group(2))
                if m.group(3):
                    info["ip"] = m.group(3)
                body = body[m.end() :]
                continue
            m = _BRACKET_TS.match(body) or (None if "node" in info else _PDSH.match(body))
            if m is None:
                break
            if m.re is _PDSH:
                info["node"] = m.group(1)
            body = body[m.end() :]
    m = _NCCL.match(body) or _NCCL.search(body[:120])
    if m is not None:
        info["node"] = short_node(m.group(1))
        info["pid"] = int(m.group(2))
        info["local_dev"] = int(m.group(4))
        body = body[m.end() :]
    else:
        m = _HOSTPID.match(body)
        if m is not None:
            info["node"] = short_node(m.group(1))
            info["pid"] = int(m.group(2))
            if m.group(3):  # UCX's thread, which its backtrace names
                info["tid"] = int(m.group(3))
            body = body[m.end() :]
    if "rank" not in info:
        kv = _KV_RANK.search(body)
        if kv is not None:
            info["rank"] = int(kv.group(1))
        else:
            pg = _PG_RANK.search(body)
            # `[Rank N]` is the rank inside the process group; global only for the default group.
            if pg is not None and ("PG GUID" not in body or "default_pg" in body):
                info["rank"] = int(pg.group(1))
                info["rank_from"] = "pg"
    if "rank" not in info and "task" in info:
        # An `srun -l` label is the Slurm task (SLURM_PROCID); the job's rank until the
        # scheduler evidence says otherwise (`scheduler.place`).
        info["rank"], info["rank_from"] = info["task"], "task"
    return info, body


def normalise_text(
    text: str,
    *,
    source: str,
    year: Year,
    tz: tzinfo = UTC,
    rank: int | None = None,
    node: str | None = None,
    skip: frozenset[int] | set[int] = frozenset(),
) -> list[Event]:
    """Events of one decoded text source. `rank`/`node` are the file's defaults (per-rank files);
    `skip` holds the line numbers a table reader already read (Kubernetes event rows)."""
    events: list[Event] = []
    done = -1  # index of the last character already consumed by a block
    line_no = 1
    counted = 0
    for start in candidate_lines(text):
        if start <= done:
            continue
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line_no += text.count("\n", counted, start)
        counted = start
        if line_no in skip:
            continue
        line = text[start:end]
        ctx = _Ctx(text, source, year, tz, rank, node)
        if "Traceback (most recent call last)" in line:
            event, done = _traceback(ctx, start, end, line_no)
        elif "backtrace" in line and (opened := ucx.header_tid(split_prefixes(line)[1]))[0]:
            done = _backtrace(ctx, events, end, line_no, opened[1])
            continue
        elif "Root Cause (first observed failure)" in line or line.strip() == "Failures:":
            block, done = _launcher(ctx, end, line_no, root="Root Cause" in line)
            events.extend(block)
            continue
        else:
            event, done = _single(ctx, line, start, line_no, end)
        if event is not None:
            events.append(event)
    return events


class _Ctx:
    __slots__ = ("node", "rank", "source", "text", "tz", "year")

    def __init__(
        self, text: str, source: str, year: Year, tz: tzinfo, rank: int | None, node: str | None
    ) -> None:
        self.text, self.source, self.year, self.tz = text, source, year, tz
        self.rank, self.node = rank, node


def _single(ctx: _Ctx, line: str, start: int, line_no: int, end: int) -> tuple[Event | None, int]:
    """The line's event, and where its block ends (the line's end, but for a block whose
    headline the lines after it complete)."""
    info, body = split_prefixes(line)
    body, end = _block(ctx, info, body, end)
    found = classify(body)
    if found is None:
        return None, end
    kind, detail = found
    return _event(ctx, line, start, line_no, kind, detail, info, body), end


def _next_line(text: str, end: int) -> tuple[str, int] | None:
    """The line after the one that ends at `end`, and where it ends; None past the text."""
    if end >= len(text):
        return None
    nxt = text.find("\n", end + 1)
    nxt = len(text) if nxt == -1 else nxt
    return text[end + 1 : nxt], nxt


def _block(ctx: _Ctx, info: dict[str, Any], body: str, end: int) -> tuple[str, int]:
    """A message whose meaning is on the lines after its headline (Ray's actor death: the
    node's address and the cause follow it) as one line, and the offset where it ends."""
    if not ray_actor.opens_block(body):
        return body, end
    parts, pos = [body.strip()], end
    for _ in range(ray_actor.MAX_BLOCK_LINES):
        if (got := _next_line(ctx.text, pos)) is None:
            break
        line, nxt = got
        line_info, line_body = split_prefixes(line)
        if line_info.get("rank", info.get("rank")) != info.get("rank"):
            break  # another rank's output
        if not ray_actor.continues_block(line_body):
            break
        parts.append(line_body.strip())
        pos = nxt
    return " ".join(parts), pos


def _event(
    ctx: _Ctx,
    line: str,
    start: int,
    line_no: int,
    kind: str,
    detail: dict[str, Any],
    info: dict[str, Any],
    body: str,
) -> Event:
    when = parse_line_time(line, year=ctx.year, tz=ctx.tz)
    if when is None and kind == "scheduler" and detail.get("cancelled_at"):
        when = parse_iso(detail["cancelled_at"], tz=ctx.tz)
        detail["time_from"] = "cancelled_at"
    if when is None:
        when = _bounded_time(ctx, start, info, detail)
    # Ray forwards a raylet's lines to the driver's output: the IP the line names is its node.
    node = detail.get("node_ip") or info.get("node") or syslog_host(line) or ctx.node
    rank = info.get("rank", ctx.rank)
    if kind in ("scheduler", "launch_failure") and detail.get("host"):
        node = short_node(detail["host"])
        tasks = detail.get("tasks", "")
        if tasks.isdigit():
            rank = int(tasks)
            detail.update(task=rank, rank_from="task")
    if kind == "collective_desync":
        detail["reported_by"] = rank
        rank = detail["culprit"]
    for key in ("pid", "tid", "local_dev", "local_rank", "ip", "rank_from", "task"):
        if key in info and key not in detail:
            detail[key] = info[key]
    if "local_rank" not in detail and kind == "signal":
        lm = _LOCAL.search(body)
        if lm is not None:
            detail["local_rank"] = int(lm.group(1))
    return Event(when, rank, node, ctx.source, line_no, kind, body.strip()[:400], detail)


def _bounded_time(
    ctx: _Ctx, start: int, info: dict[str, Any], detail: dict[str, Any]
) -> datetime | None:
    """A line without a timestamp lies between its stamped neighbours in the same file: the
    nearest earlier line of the same rank or process (else of any line) and the next stamped
    line. The event keeps the lower bound for ordering; `time_range` holds both, and the time
    counts as the line's own (`time_inferred` false) only when the lower bound is the same
    process's line."""
    who = info.get("rank"), info.get("pid")
    before = ctx.text[max(0, start - 4096) : start].split("\n")[-31:]
    end = ctx.text.find("\n", start)
    after = [] if end == -1 else ctx.text[end + 1 : end + 4097].split("\n")[:30]
    low, same = _earlier(ctx, before, who)
    high = next((t for line in after if line and (t := _stamp(ctx, line))), None)
    if low is None and high is None:
        return None
    detail["time_range"] = [low.isoformat() if low else None, high.isoformat() if high else None]
    detail["time_from"] = "neighbouring lines, same process" if same else "neighbouring lines"
    detail["time_inferred"] = not same
    return low


def _stamp(ctx: _Ctx, line: str) -> datetime | None:
    when = parse_line_time(line, year=ctx.year, tz=ctx.tz)
    if when is None and "CANCELLED AT " in line:  # slurmstepd's own time for that line
        when = parse_iso(line.split("CANCELLED AT ", 1)[1][:40], tz=ctx.tz)
    return when


def _earlier(ctx: _Ctx, lines: list[str], who: tuple[Any, Any]) -> tuple[datetime | None, bool]:
    """The nearest stamped line before: the same rank's or process's if there is one, else any
    line's. Returns (time, same process)."""
    anyone: datetime | None = None
    for line in reversed(lines):
        if not line:
            continue
        if who == (None, None):
            if (when := _stamp(ctx, line)) is not None:
                return when, False
            continue
        prev_info, _ = split_prefixes(line)
        same = (who[0] is not None and prev_info.get("rank") == who[0]) or (
            who[1] is not None and prev_info.get("pid") == who[1]
        )
        if same and (when := _stamp(ctx, line)) is not None:
            return when, True
        if anyone is None and not same:
            anyone = _stamp(ctx, line)
    return anyone, False


def _traceback(ctx: _Ctx, start: int, end: int, line_no: int) -> tuple[Event | None, int]:
    """Read a Python traceback to its final exception line; classify that line."""
    header = ctx.text[start:end]
    info, _ = split_prefixes(header)
    pos, offset = end, 0
    for _ in range(_MAX_TRACEBACK_LINES):
        if pos >= len(ctx.text):
            break
        nxt = ctx.text.find("\n", pos + 1)
        nxt = len(ctx.text) if nxt == -1 else nxt
        line = ctx.text[pos + 1 : nxt]
        offset += 1
        pos = nxt
        line_info, body = split_prefixes(line)
        if any(info.get(k) is not None and line_info.get(k, info[k]) != info[k]
               for k in ("rank", "node")):  # fmt: skip
            continue  # another rank's (or pdsh host's) output interleaved
        if not body.strip() or body[:1] in (" ", "\t") or body.startswith("...<"):
            continue
        if body.startswith(("During handling", "The above exception", "Traceback (most")):
            continue
        m = _EXC.match(body.strip())
        if m is None:
            return None, pos
        exc_type, message = m.group(1), (m.group(2) or "")
        if exc_type.endswith("ChildFailedError"):
            return None, pos  # the launcher's own traceback; its summary block follows
        line_start = pos - len(line)
        body, pos = _block(ctx, line_info, body, pos)
        found = classify(body)
        detail: dict[str, Any] = {"exc_type": exc_type, "traceback_line": line_no}
        if found is not None and found[0] not in ("nccl_init", "nccl_warn"):
            kind, extra = found
            detail.update(extra)
        else:
            kind = "python_exception"
            cascade = CASCADE.search(f"{exc_type}: {message}") is not None
            detail.update(secondary=cascade, tier=3 if cascade else 1)
        event = _event(ctx, line, line_start, line_no + offset, kind, detail, info, body)
        if event.time_utc is None:
            event.time_utc = parse_line_time(header, year=ctx.year, tz=ctx.tz)
        return event, pos
    return None, pos


def _backtrace(ctx: _Ctx, events: list[Event], end: int, line_no: int, tid: int | None) -> int:
    """UCX's backtrace block: its frames go onto the signal event they follow (`ucx.attach`),
    none is read as a line of its own. Returns the offset where the block ends."""
    frames: list[str] = []
    pos = end
    for _ in range(ucx.MAX_FRAMES):
        if (got := _next_line(ctx.text, pos)) is None:
            break
        line, nxt = got
        _, body = split_prefixes(line)
        if ucx.closes(body):
            pos = nxt
            break
        found = ucx.frame(body)
        if found is None:
            break
        frames.append(found)
        pos = nxt
    ucx.attach(events, source=ctx.source, tid=tid, frames=frames, line_no=line_no)
    return pos


def _launcher(ctx: _Ctx, end: int, line_no: int, *, root: bool) -> tuple[list[Event], int]:
    """torchrun's ChildFailedError entries: `[i]:` then `key : value` lines. An entry's
    `traceback :` may hold the rank's own Python traceback (from its error file), indented under
    it; those lines belong to that entry, not to whoever printed the summary."""
    events: list[Event] = []
    pos, offset = end, 0
    entry: dict[str, Any] | None = None
    entry_line = 0

    def flush() -> None:
        if entry is not None:
            events.extend(_launcher_events(ctx, entry, line_no, entry_line, root=root))

    while pos < len(ctx.text):
        nxt = ctx.text.find("\n", pos + 1)
        nxt = len(ctx.text) if nxt == -1 else nxt
        line = ctx.text[pos + 1 : nxt]
        _, body = split_prefixes(line)
        if _ENTRY.match(body):
            flush()
            entry, entry_line = {}, offset + 1
        elif entry is not None and "tb" in entry and _in_traceback(body):
            entry["tb"].append((offset + 1, body))
        elif entry is not None and (fm := _FIELD.match(body)) is not None:
            entry[fm.group(1)] = fm.group(2).strip()
            if fm.group(1) == "traceback" and entry["traceback"].startswith("Traceback ("):
                entry["tb"] = []
        else:
            break
        offset += 1
        pos = nxt
    flush()
    return events, pos


def _in_traceback(body: str) -> bool:
    """An entry's traceback is indented under it; a separator or any other line ends it (in a
    log several processes write, the next line may be another's)."""
    return body.startswith((" ", "\t")) and not _SEPARATOR.match(body)


def _launcher_events(
    ctx: _Ctx, entry: dict[str, Any], line_no: int, entry_line: int, *, root: bool
) -> list[Event]:
    """The entry's summary event, and the rank's own exception when its traceback is printed."""
    summary = _launcher_event(ctx, entry, line_no + entry_line, root=root)
    found = _entry_exception(entry.get("tb", []))
    if found is None:
        return [summary]
    offset, body, exc_type = found
    hit = classify(body)
    detail: dict[str, Any] = {"exc_type": exc_type, "from": "torchrun error_file"}
    if hit is not None and hit[0] not in ("nccl_init", "nccl_warn"):
        kind = hit[0]
        detail.update(hit[1])
    else:
        kind = "python_exception"
        cascade = CASCADE.search(body) is not None
        detail.update(secondary=cascade, tier=3 if cascade else 1)
    if summary.time_utc is not None:
        # The error file is written as the process dies: its exit time bounds the error.
        detail.update(time_from="torchrun's record of that process's exit", time_inferred=False)
    for key in ("pid", "local_rank"):
        if key in summary.detail:
            detail[key] = summary.detail[key]
    return [summary, Event(summary.time_utc, summary.rank, summary.node, ctx.source,
                           line_no + offset, kind, body.strip()[:400], detail)]  # fmt: skip


def _entry_exception(tb: list[tuple[int, str]]) -> tuple[int, str, str] | None:
    """(line offset, line, exception type) of the final exception line of an entry's traceback:
    the first line indented no deeper than the entry's fields that names an exception."""
    for offset, body in tb:
        text = body.strip()
        if (
            not text
            or body.startswith("    ")
            or text.startswith(("File ", "During handling", "The above exception"))
        ):
            continue  # fmt: skip
        m = _EXC.match(text)
        if m is not None and m.group(2) is not None:
            return offset, text, m.group(1)
    return None


def _launcher_event(ctx: _Ctx, entry: dict[str, str], line_no: int, *, root: bool) -> Event:
    rank_m = re.match(r"(\d+)(?: \(local_rank: (\d+)\))?", entry.get("rank", ""))
    code_m = re.match(r"(-?\d+)", entry.get("exitcode", ""))
    detail: dict[str, Any] = {"root_cause": root, "secondary": True, "tier": 3}
    if code_m is not None:
        code = int(code_m.group(1))
        detail["exitcode"] = code
        if code < 0:
            detail["signal"] = -code
    pid_m = re.search(r"pid: (\d+)", entry.get("exitcode", ""))
    if pid_m is not None:
        detail["pid"] = int(pid_m.group(1))
    if rank_m is not None and rank_m.group(2):
        detail["local_rank"] = int(rank_m.group(2))
    if entry.get("traceback"):
        detail["traceback"] = entry["traceback"][:200]
    label = "root cause (first observed failure)" if root else "failure"
    text = f"torchrun {label}: rank {entry.get('rank', '?')} exitcode {entry.get('exitcode', '?')}"
    return Event(
        parse_iso(entry.get("time", ""), tz=ctx.tz),
        int(rank_m.group(1)) if rank_m else ctx.rank,
        short_node(entry.get("host")) or ctx.node,
        ctx.source,
        line_no,
        "launcher_summary",
        text,
        detail,
    )
