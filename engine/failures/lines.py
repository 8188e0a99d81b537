"""Line patterns: which kind of event a log line is, with the fields that matter.

`classify(body)` sees one line with launcher/rank prefixes already removed and returns
`(kind, detail)` or None. Detail keys used downstream: `seq`, `op`, `pg`, `xid`, `pci`, `peer_ip`,
`signal`, `cause`, `secondary` (overrides the kind's default), `tier`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum, auto
from typing import Any

from . import decoded, peers, ucx
from .pci import pci_key

# Candidate lines are found with `str.find` on these literals (C speed, one pass each) instead of
# one big regex alternation, which Python's engine tries at every position. Anything a classifier
# below can return must contain one of them.
ANCHORS = (
    "atchdog", "ProcessGroupNCCL", "NCCL operations", "NCCL WARN", "Init COMPLETE", "Init START",
    " nRanks ", "Init timings", "Bootstrap",
    "join collective", "CUDA error", "cuda error", "CUDA failure", "Cuda failure", "cudaError",
    "CUDA_ERROR_", "illegal memory access", "launch failure", "ut of memory", "OfMemory", "oom",
    "OOM", "Xid (", "ncorrectable", "Double Bit", "Remapping Failure", "remappings are pending",
    "Pending", "Traceback (", "exitcode", "return code =", "ignal", "srun", "CANCELLED AT",
    "Job step", "StepId", "NODE FAIL", "Root Cause (", "Failures:", "gloo", "Gloo", "by peer",
    "pair closure", "global_ranks=",
    "communicator was aborted", "timed out", "terminate called", "expected size",
    "ollective mismatch", "mismatch between collectives", "Fatal Python error", "Exit Code:",
    "Got completion from peer", *decoded.ANCHORS, *peers.ANCHORS, *ucx.ANCHORS,
)  # fmt: skip


def candidate_lines(text: str) -> list[int]:
    """Sorted start offsets of the lines that contain any anchor."""
    starts: set[int] = set()
    find, rfind = text.find, text.rfind
    for anchor in ANCHORS:
        i = find(anchor)
        while i != -1:
            start = rfind("\n", 0, i) + 1
            starts.add(start)
            end = find("\n", i)
            if end == -1:
                break
            i = find(anchor, end)
    return sorted(starts)


# Xid codes that point at the application (bad address, stopped channel) rather than hardware.
APP_XIDS = frozenset({13, 31, 43, 45, 68, 69})
ECC_XIDS = frozenset({48, 63, 64, 92, 94, 95})

_WATCHDOG = re.compile(
    r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), OpType=(\w+)"
    r"(?:.*?Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds)?"
)
_PG = re.compile(r"PG GUID (\d+)(?:\(([^)]*)\))?|PG ID (\d+)")
_DETECTED = re.compile(
    r"failure detected by watchdog at work sequence id: (\d+).*?last enqueued (?:NCCL )?work: "
    r"(-?\d+), last completed (?:NCCL )?work: (-?\d+)"
    r"|Exception \(either an error or timeout\) detected by watchdog at work: (\d+), last "
    r"enqueued NCCL work: (-?\d+), last completed NCCL work: (-?\d+)"
)
_TIMED_OUT = re.compile(
    r"Some NCCL operations have failed or timed out|(?:WorkNCCL|ProcessGroupNCCL|collective).*"
    r"timed out|NCCL communicator was aborted|watchdog thread terminated"
)
# The watchdog thread itself stopped (PyTorch 2.2+'s heartbeat monitor): a CUDA or NCCL call on
# this rank blocked. Before anyone else timed out it points at this rank (`deaths.weigh_hangs`).
_HANG = re.compile(
    r"Heartbeat monitor timed out|watchdog got stuck for \d+ seconds"
    r"|due to ProcessGroupNCCL watchdog hang"
)
_DESYNC = re.compile(r"\[(\d+)\] finished collective #(\d+), but didn't join collective #(\d+)")
_XID = re.compile(
    r"(S?)Xid \(PCI:([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.\d)?\): (\d+), ?(.*)"
)
_CAUSED_BY = re.compile(r"caused by previous Xid (\d+)")
_XID_PID = re.compile(r"^pid=(?:'<unknown>'|(\d+)), (?:name=([^,]*), )?")
_ECC = re.compile(
    r"(?:DRAM |SRAM )?Uncorrectable(?: Error)?\s*:\s*([1-9]\d*)|Double Bit ECC\s*:\s*([1-9]\d*)"
    r"|Remapping Failure Occurred\s*:\s*Yes|row remappings are pending|^\s*Pending\s+: Yes"
)
_OOM = re.compile(
    r"(?:Memory cgroup )?[Oo]ut of memory: Kill(?:ed)? process (\d+) \(([^)]*)\)"
    r"|oom-kill:.*?task=([^,]*),pid=(\d+)|CUDA out of memory|OutOfMemoryError|OOMKill"
    r"|oom_kill event|(?<!invoked )out of memory(?! issue)",
    re.I,
)
_NCCL_WARN = re.compile(r"(?:(\S+\.cc:\d+) )?NCCL WARN (.*)")
_TRANSPORT = re.compile(r"NET/|transport/|ibv_|IBV_|proxy|Net :|socket|Socket|peer", re.I)
_IB_COMPLETION = re.compile(r"NET/IB ?: Got completion from peer")
_PEER = re.compile(r"peer (?:\[)?(\d{1,3}(?:\.\d{1,3}){3})")
_CUDA = re.compile(
    r"CUDA error: (.*)|unhandled cuda error(.*)|(cudaError\w+)|(CUDA_ERROR_\w+)"
    r"|Cuda failure '?([^']*)"
    r"|CUDA failure [^']*'([^']*)'|(an illegal memory access was encountered)"
    r"|(unspecified launch failure)",
    re.I,
)
_SIGNAL = re.compile(
    r"exitcode\s*:?\s*(-\d+)|Signal (\d+) \((SIG\w+)\) received by PID (\d+)"
    r"|Caught signal (\d+)|Signal: [\w ]+ \((\d+)\)|received signal (SIG\w+)|got signal: (\d+)"
    r"|exits with return code = (-\d+)"  # DeepSpeed's launcher: its worker died by signal N
)
_SIG_NUM = {"SIGKILL": 9, "SIGABRT": 6, "SIGTERM": 15, "SIGSEGV": 11, "SIGBUS": 7, "SIGINT": 2}
# How Slurm, Python's faulthandler and Kubernetes name a death by signal.
_SIG_WORDS = {"Killed": 9, "Aborted": 6, "Segmentation fault": 11, "Bus error": 7,
              "Terminated": 15, "Interrupt": 2}  # fmt: skip
_FATAL = re.compile(r"Fatal Python error: (Segmentation fault|Bus error|Aborted)")
_K8S_EXIT = re.compile(r"\bExit Code:\s+(\d+)")
_EXIT_CODE = re.compile(r"[Ee]xit(?:ed with)? (?:exit )?code:? (\d+)")
# A transport that reports that the ranks called different collectives: the application's fault.
_COLLECTIVE_ERROR = re.compile(
    r"Received data size doesn't match expected size|Is there a distributed collective mismatch"
    r"|Detected mismatch between collectives|collective mismatch"
)
_TERMINATE = re.compile(r"terminate called after throwing an instance of '([^']+)'")
_CASCADE_TYPES = ("c10::DistBackendError", "c10::DistNetworkError")
_CRASH_SIGNALS = frozenset({4, 7, 8, 11})
_SRUN_TASK = re.compile(r"srun: error: (\S+): tasks? ([\d,\-]+): (.*)")
_CANCEL = re.compile(
    r"\*\*\* (STEP|JOB) (\S+) ON (\S+) CANCELLED AT (\S+)(?: DUE TO ([A-Z ]+?))?"
    r"(?:, SEE [A-Z ]+)?(?: \*\*\*|$)"
)
_STEP = re.compile(r"Job step aborted|(?:Force )?Terminat(?:ing|ed) StepId=(\S+)")
_GLOO_CLOSED = re.compile(r"Connection (closed|reset) by peer(?: \[?(\d{1,3}(?:\.\d{1,3}){3})\]?)?")
_GLOO_TIMEOUT = re.compile(r"[Tt]imed out|[Tt]imeout|pair closure")
_NCCL_INIT = re.compile(
    r"\brank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev \d+)? busId ([0-9a-fA-F]+)"
    r".*Init (?:COMPLETE|START)"
)
# NCCL 2.19+, once per rank as a communicator is set up (`comm 0x… rank 6 nRanks 8 nNodes 1`)
# and when it is (`Init timings - ncclCommInitRank: rank 1 nranks 16 total 1.57`).
_NCCL_COMM = re.compile(
    r"(?:\bcomm 0x[0-9a-fA-F]+|ncclCommInitRank:) rank (\d+) n[Rr]anks (\d+) (?:nNodes|total) "
)
_COMM_PTR = re.compile(r"\bcomm (0x[0-9a-fA-F]+)")
_BOOTSTRAP = re.compile(r"Bootstrap ?: Using \w+:(\d{1,3}(?:\.\d{1,3}){3})")
_ENV_DUMP = re.compile(r"global_ranks=\[([\d, ]*)\]")
_LOCAL_RANKS = re.compile(r"local_ranks=\[([\d, ]*)\]")

# Python exceptions that are the cascade arriving at a healthy rank, not a cause.
# A store that timed out waiting for clients (`DistStoreError: Timed out after 901 seconds waiting
# for clients. 3/4 clients joined.`) waited for a rank that never came.
CASCADE = re.compile(
    r"(?i:timed out)|[Tt]imeout|Watchdog|DistBackendError|DistNetworkError|DistStoreError"
    r"|by peer|ChildFailedError"
    r"|communicator was aborted|SignalException|KeyboardInterrupt|SIGTERM|Broken pipe"
    r"|remote process exited|ProcessGroupNCCL is aborted"
)


def _first(m: re.Match[str]) -> str:
    return next((g for g in m.groups() if g), "").strip()


class _Next(Enum):
    """A rule's answer when the line is not of its kind: the next rule reads it."""

    RULE = auto()


_NEXT = _Next.RULE
# A rule's answer: the kind and detail, None when the line is not evidence at all (no later
# rule reads it), or _NEXT.
_Found = tuple[str, dict[str, Any]] | None | _Next


def classify(body: str) -> tuple[str, dict[str, Any]] | None:
    """Kind and detail of one line's message, or None when the line is not evidence.

    The first rule in `_RULES` that recognises the line decides: their order is the precedence
    (an Xid line is read as an Xid even where it names ECC; an out-of-memory inside an NCCL
    warning is read as NCCL's warning)."""
    for rule in _RULES:
        found = rule(body)
        if found is not _NEXT:
            return found
    return None


def _xid_line(body: str) -> _Found:
    return _xid(body) if "Xid (" in body else _NEXT


def _ecc(body: str) -> _Found:
    m = _ECC.search(body)
    return _NEXT if m is None else ("ecc", {"tier": 0, "cause": _ecc_cause(m)})


def _ecc_cause(m: re.Match[str]) -> str:
    # `nvidia-smi -q`'s bare "Pending : Yes" sits under its Remapped Rows heading.
    text = " ".join(m.group(0).split())
    return "remapped rows pending (a GPU reset is due)" if text == "Pending : Yes" else text


def _decoded(body: str) -> _Found:
    found = decoded.decode(body)
    return _NEXT if found is None else found


def _watchdog_line(body: str) -> _Found:
    if "Watchdog caught" in body or "detected by watchdog" in body:
        return _watchdog(body)
    return _NEXT


def _watchdog_hang(body: str) -> _Found:
    if _HANG.search(body) is None:
        return _NEXT
    return "nccl_timeout", _pg(body, {"hang": True, "cause": "watchdog hang"})


def _desync(body: str) -> _Found:
    m = _DESYNC.search(body)
    if m is None:
        return _NEXT
    culprit = int(m.group(1))
    return "collective_desync", {
        "culprit": culprit, "seq": int(m.group(3)), "tier": 1, "from": "desync report",
    }  # fmt: skip


def _collective_error(body: str) -> _Found:
    m = _COLLECTIVE_ERROR.search(body)
    return _NEXT if m is None else ("collective_error", {"tier": 1, "cause": m.group(0)})


def _terminate(body: str) -> _Found:
    """C++ std::terminate: SIGABRT follows; a watchdog's throw is a consequence."""
    m = _TERMINATE.search(body)
    if m is None:
        return _NEXT
    cascade = m.group(1) in _CASCADE_TYPES
    return "cpp_terminate", {
        "exc_type": m.group(1), "signal": 6, "secondary": cascade, "tier": 3 if cascade else 2,
    }  # fmt: skip


def _peer_lost(body: str) -> _Found:
    found = peers.decode(body)
    return _NEXT if found is None else found


def _cuda_first(body: str) -> _Found:
    """Also "watchdog thread terminated with exception: CUDA error: ..."; NCCL's warnings and
    out-of-memory lines that mention CUDA are read by their own rules first."""
    if "NCCL WARN" in body or "out of memory" in body.lower():
        return _NEXT
    return _cuda(body)


def _timed_out(body: str) -> _Found:
    return ("nccl_timeout", _pg(body, {})) if _TIMED_OUT.search(body) else _NEXT


def _oom(body: str) -> _Found:
    m = _OOM.search(body)
    if m is None or "NCCL WARN" in body or "invoked oom-killer" in body:
        return _NEXT
    detail: dict[str, Any] = {"tier": 1}
    if m.group(1) or m.group(4):  # the kernel's OOM killer names the victim's pid
        pid, process = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        detail.update(host_oom=True, pid=int(pid), process=process)
    elif "oom_kill event" in body or "OOMKill" in body:
        detail["host_oom"] = True
    if "Memory cgroup" in body or "OOMKilled" in body or "oom_memcg" in body:
        detail["limit"] = True  # the job's own memory limit (cgroup, container), not the host
    return "oom", detail


def _nccl_warn_line(body: str) -> _Found:
    return _nccl_warn(body) if "NCCL WARN" in body else _NEXT


def _ib_completion(body: str) -> _Found:
    """NCCL's IB completion error as PyTorch repeats it under `Last error:` (no `NCCL WARN`)."""
    return _nccl_warn(body) if _IB_COMPLETION.search(body) else _NEXT


def _cuda(body: str) -> _Found:
    m = _CUDA.search(body)
    return _NEXT if m is None else ("cuda_error", {"tier": 1, "error": _first(m)[:200]})


def _gloo_line(body: str) -> _Found:
    if "gloo" in body.lower() or "by peer" in body or "pair closure" in body:
        return _gloo(body)
    return _NEXT


def _scheduler_line(body: str) -> _Found:
    found = _scheduler(body)
    return _NEXT if found is None else found


def _signal_line(body: str) -> _Found:
    m = _SIGNAL.search(body)
    return _NEXT if m is None else _signal(m)


def _fatal(body: str) -> _Found:
    m = _FATAL.search(body)
    return _NEXT if m is None else _death(_SIG_WORDS[m.group(1)])


def _k8s_exit(body: str) -> _Found:
    m = _K8S_EXIT.search(body)
    if m is not None and int(m.group(1)) > 128:  # a container's status: 128 + signal
        return _death(int(m.group(1)) - 128)
    return _NEXT


def _nccl_init(body: str) -> _Found:
    m = _NCCL_INIT.search(body)
    found: dict[str, Any] | None = None
    if m is not None:
        found = {
            "comm_rank": int(m.group(1)), "nranks": int(m.group(2)),
            "local_dev": int(m.group(3)), "pci": pci_key(m.group(4)),
        }  # fmt: skip
    elif (m := _NCCL_COMM.search(body)) is not None:
        found = {"comm_rank": int(m.group(1)), "nranks": int(m.group(2))}
    if found is not None:
        ptr = _COMM_PTR.search(body)
        if ptr is not None:
            found["comm"] = ptr.group(1)
        # `ncclCommSplit comm 0x… rank 0 nranks 2 … parent 0x…`: a child of another communicator.
        if "ncclCommSplit" in body or " parent 0x" in body:
            found["split"] = True
        return "nccl_init", found
    m = _BOOTSTRAP.search(body)
    if m is not None:
        return "nccl_init", {"ip": m.group(1)}
    m = _ENV_DUMP.search(body)
    if m is not None:
        ranks = [int(x) for x in m.group(1).replace(" ", "").split(",") if x]
        return "nccl_init", {"global_ranks": ranks}
    m = _LOCAL_RANKS.search(body)
    if m is not None:
        return "nccl_init", {"local_ranks": [int(x) for x in re.findall(r"\d+", m.group(1))]}
    return _NEXT


_RULES: tuple[Callable[[str], _Found], ...] = (
    _xid_line, _ecc, _decoded, _watchdog_hang, _watchdog_line, _desync, _collective_error,
    _terminate, _peer_lost, _cuda_first, _timed_out, _oom, _nccl_warn_line, _ib_completion, _cuda,
    _gloo_line, _scheduler_line, _signal_line, _fatal, _k8s_exit, _nccl_init,
)  # fmt: skip


def _xid(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _XID.search(body)
    if m is None:
        return None
    code = int(m.group(3))
    rest = m.group(4)
    detail: dict[str, Any] = {"xid": code, "pci": pci_key(m.group(2))}
    pm = _XID_PID.match(rest)
    if pm is not None:
        if pm.group(1):
            detail["pid"] = int(pm.group(1))
        if pm.group(2) and pm.group(2) != "<unknown>":
            detail["process"] = pm.group(2)
        rest = rest[pm.end() :]
    detail["message"] = rest.strip()[:200]
    if m.group(1):  # NVSwitch SXid: the fabric, not one GPU
        detail.update(nvswitch=True, tier=0)
        return "xid", detail
    if code in ECC_XIDS:
        detail["tier"] = 0
        return "ecc", detail
    detail["tier"] = 1 if code in APP_XIDS else 0
    cause = _CAUSED_BY.search(rest)
    if code == 45 and cause is not None and int(cause.group(1)) not in APP_XIDS:
        # The driver names the fault that made it clean up (an NVLink Xid 145/149): that fault.
        detail.update(xid=int(cause.group(1)), reported_by_xid=45, tier=0)
    elif code == 45:  # preemptive cleanup after an earlier error on the channel
        detail["secondary"] = True
    return "xid", detail


def _pg(body: str, detail: dict[str, Any]) -> dict[str, Any]:
    m = _PG.search(body)
    if m is not None:
        detail["pg"] = m.group(2) or m.group(1) or m.group(3)
    return detail


def _watchdog(body: str) -> tuple[str, dict[str, Any]]:
    detail: dict[str, Any] = {}
    m = _WATCHDOG.search(body)
    if m is not None:
        detail.update(seq=int(m.group(1)), op=m.group(2))
        if m.group(3):
            detail.update(timeout_ms=int(m.group(3)), ran_ms=int(m.group(4)))
    d = _DETECTED.search(body)
    if d is not None:
        seq, enq, done = (d.group(1), d.group(2), d.group(3)) if d.group(1) else d.groups()[3:]
        detail.update(seq=int(seq), last_enqueued=int(enq), last_completed=int(done))
    return "nccl_timeout", _pg(body, detail)


def _nccl_warn(body: str) -> tuple[str, dict[str, Any]]:
    m = _NCCL_WARN.search(body)
    where, message = (m.group(1), m.group(2)) if m else (None, body)
    detail: dict[str, Any] = {"where": where, "message": message[:300]}
    cuda = _CUDA.search(message)
    if cuda is not None or "Cuda failure" in message:
        detail["tier"] = 1
        return "cuda_error", detail
    if _TRANSPORT.search(message) or (where or "").startswith(("transport/", "net", "proxy")):
        peer = _PEER.search(message)
        if peer is not None:
            detail["peer_ip"] = peer.group(1)
        detail["tier"] = 1
        return "nccl_warn_transport", detail
    return "nccl_warn", detail


def _gloo(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _GLOO_CLOSED.search(body)
    if m is not None:
        detail: dict[str, Any] = {"cause": f"connection {m.group(1)} by peer"}
        if m.group(2):
            detail["peer_ip"] = m.group(2)
        return "gloo", detail
    if _GLOO_TIMEOUT.search(body):
        return "gloo", {"cause": "timeout"}
    return None


def _scheduler(body: str) -> tuple[str, dict[str, Any]] | None:
    m = _SRUN_TASK.search(body)
    if m is not None:
        reason = m.group(3).strip()
        crash = "Segmentation fault" in reason or "Bus error" in reason
        detail = {
            "host": m.group(1), "tasks": m.group(2), "cause": reason,
            "secondary": not crash, "tier": 1 if crash else 3,
        }  # fmt: skip
        num = next((n for word, n in _SIG_WORDS.items() if reason.startswith(word)), None)
        if num is not None:
            detail["signal"] = num
        elif (code := _EXIT_CODE.search(reason)) is not None:
            detail["exitcode"] = int(code.group(1))
        return "scheduler", detail
    m = _CANCEL.search(body)
    if m is not None:
        why = (m.group(5) or "user cancel").strip().lower()
        node_lost = "node fail" in why
        # The scheduler took the nodes back (`DUE TO PREEMPTION`): nothing the job did.
        preempted = "preempt" in why
        timed_out = "time limit" in why
        primary = node_lost or timed_out or preempted
        # A node failure is reported ON a node that survived it: that host is no culprit.
        return "scheduler", {
            "step": m.group(2), ("step_host" if node_lost else "host"): m.group(3),
            "cancelled_at": m.group(4), "cause": why,
            "secondary": not primary, "tier": 0 if node_lost else (2 if primary else 3),
        } | ({"preempted": True} if preempted else {}) | (
            {"time_limit": True} if timed_out else {})  # fmt: skip
    m = _STEP.search(body)
    if m is not None:
        return "scheduler", {"cause": "step aborted", "step": m.group(1)}
    if "NODE FAIL" in body:
        return "scheduler", {"cause": "node failure", "secondary": False, "tier": 0}
    return None


def _signal(m: re.Match[str]) -> tuple[str, dict[str, Any]]:
    if m.group(9):
        kind, detail = _death(abs(int(m.group(9))))
        return kind, detail | {"launcher": "deepspeed"}
    if m.group(1):
        num = abs(int(m.group(1)))
    elif m.group(2):
        num = int(m.group(2))
    elif m.group(5) or m.group(6) or m.group(8):
        num = int(m.group(5) or m.group(6) or m.group(8))
    else:
        num = _SIG_NUM.get(m.group(7) or "", 0)
    return _death(num)


def _death(num: int) -> tuple[str, dict[str, Any]]:
    crash = num in _CRASH_SIGNALS
    return "signal", {"signal": num, "secondary": not crash, "tier": 1 if crash else 3}
