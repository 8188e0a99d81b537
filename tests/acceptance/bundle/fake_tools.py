"""Stand-ins for nvidia-smi, srun, scontrol and curl, so the bundle's scripts run without a GPU
cluster. The dmon stand-in prints what `nvidia-smi dmon -s pucet -o DT` prints (two `#` lines,
then one dated row per GPU each interval; `-` where a value is not reported) and records each
call's arguments and pid in $FAKE_CALLS.

Its behaviour is set by the environment:
    FAKE_GPUS        GPUs the node has (default 8)
    FAKE_DMON_END    wait: print until killed (default); exit: two samples, then exit 0 as at
                     the end of `-c`; partial: two samples, half a row, then wait; fail: print
                     nvidia-smi's refusal and exit 6
    FAKE_DMON_LOST   <node>:<gpu>: that GPU's rows stop after its index from the second sample
"""

from __future__ import annotations

import os
from pathlib import Path

NVIDIA_SMI = r"""#!/usr/bin/env bash
gpus="${FAKE_GPUS:-8}"
if [[ "$1" == --query-gpu=index ]]; then
    for ((i = 0; i < gpus; i++)); do echo "${i}"; done
    exit 0
fi
if [[ "$1" != dmon ]]; then
    echo "nvidia-smi $*"
    exit 0
fi
ids=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    if [[ "${args[i]}" == -i ]]; then ids="${args[i + 1]}"; fi
done
echo "$$ ${NODE_NAME} $*" >> "${FAKE_CALLS:-/dev/null}"
if [[ "${FAKE_DMON_END:-wait}" == fail ]]; then
    echo "Not supported on the device(s)"
    echo "Failed to process command line"
    exit 6
fi
echo "#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec" \
    " mclk  pclk sbecc dbecc   pci rxpci txpci"
echo "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %" \
    "  MHz   MHz  errs  errs  errs  MB/s  MB/s"
row=' %s %6s   %3d    %2d     -    98    31     0     0  2619  1980     0     0     0  1893   642\n'
lost_node="${FAKE_DMON_LOST%%:*}"
lost_gpu="${FAKE_DMON_LOST##*:}"
sample=0
while :; do
    TZ=UTC printf -v stamp '%(%Y%m%d   %H:%M:%S)T' -1
    for id in ${ids//,/ }; do
        if [[ "${NODE_NAME}" == "${lost_node}" && "${id}" == "${lost_gpu}" ]] \
            && [[ "${sample}" -gt 0 ]]; then
            printf ' %s %6s     -     -     -\n' "${stamp}" "${id}"
        else
            # shellcheck disable=SC2059
            printf "${row}" "${stamp}" "${id}" $((600 + id)) $((60 + id))
        fi
    done
    sample=$((sample + 1))
    if [[ "${sample}" -ge 2 ]]; then
        case "${FAKE_DMON_END:-wait}" in
            exit) exit 0 ;;
            partial)
                printf ' %s      0   63' "${stamp}"
                while :; do sleep 0.1; done
                ;;
        esac
    fi
    sleep 0.1
done
"""

# One task per node, each told its node name; SIGTERM is passed on to every task, as srun does.
# The fixture's workers and the nccl-tests runs fail: the workload failing is the case under test.
SRUN = r"""#!/usr/bin/env bash
nodes=1
while [[ "$1" == -* ]]; do
    case "$1" in --nodes=*) nodes="${1#*=}" ;; esac
    shift
done
if [[ "$*" == *fixture_allreduce.py* ]]; then
    # Fail once every node's monitor has written two samples (the second is where a lost GPU's
    # row is cut short), as a GPU lost mid-run would. A busy CI machine can take seconds.
    for ((t = 0; t < 600; t++)); do
        rows=$(cat evidence/*/nvidia-smi-dmon-*-part1.txt 2> /dev/null | grep -c '^ [0-9]\{8\}')
        [[ "${rows}" -ge $((2 * ${FAKE_NODES:-3} * ${FAKE_GPUS:-8})) ]] && break
        sleep 0.1
    done
    echo "srun: error: node-1: task 9: Exited with exit code 1" >&2
    exit 1
fi
if [[ "$*" == *_perf* ]]; then
    echo "srun: error: node-0: task 0: Exited with exit code 127" >&2
    exit 1
fi
pids=()
trap 'kill -TERM "${pids[@]}" 2> /dev/null' TERM
for ((n = 0; n < nodes; n++)); do
    NODE_NAME="node-${n}" SLURM_PROCID="${n}" "$@" &
    pids+=("$!")
done
status=0
for pid in "${pids[@]}"; do
    while :; do
        wait "${pid}"
        rc=$?
        kill -0 "${pid}" 2> /dev/null || break
    done
    [[ "${rc}" -eq 0 ]] || status="${rc}"
done
exit "${status}"
"""

# A line per write: the job script must read the whole list (no SIGPIPE under pipefail).
SCONTROL = r"""#!/usr/bin/env bash
for ((n = 0; n < ${FAKE_NODES:-3}; n++)); do echo "node-${n}"; done
"""

# Records each upload's form fields, one line per call.
CURL = r"""#!/usr/bin/env bash
line=""
while [[ $# -gt 0 ]]; do
    if [[ "$1" == -F ]]; then line+="$2 "; shift; fi
    shift
done
echo "${line}" >> "${FAKE_UPLOADS}"
"""

TOOLS = {"nvidia-smi": NVIDIA_SMI, "srun": SRUN, "scontrol": SCONTROL, "curl": CURL}


def fake_bin(folder: Path, *names: str) -> Path:
    """A folder holding the named stand-ins (all of them when none is named)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names or tuple(TOOLS):
        (folder / name).write_text(TOOLS[name])
        (folder / name).chmod(0o755)
    return folder


def path_with(folder: Path) -> str:
    return f"{folder}:{os.environ['PATH']}"


def dmon_calls(calls: Path) -> list[tuple[int, str, str]]:
    """(pid, node, arguments) for each dmon the stand-in ran."""
    out = []
    for line in calls.read_text().splitlines():
        pid, node, args = line.split(" ", 2)
        out.append((int(pid), node, args))
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    # A process that exited and waits for its parent to reap it is not running.
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")
