#!/usr/bin/env bash
# Clusterbid acceptance: watch this node's GPUs with nvidia-smi dmon while the workload runs.
#
#   evidence/<node>/nvidia-smi-dmon-gpu<first>-<last>-part<N>.txt
#
# nvidia-smi dmon -s pucet -o DT -d 5: power, temperatures, utilisation, clocks, ECC errors,
# PCIe replays and throughput of every GPU every 5 s, each row dated. Some drivers' dmon
# watches at most 4 GPUs, so every 4 GPUs get their own capture. A part holds at most 8640
# samples (12 hours, a few MB); after 14 parts (7 days) the monitor stops by itself. Each file
# starts with the collector's header line, as collect_evidence.sh writes it.
#
#   ./gpu_monitor.sh --start   on every node before the workload: runs in the background
#   ./gpu_monitor.sh --stop    on every node after it: stops the capture, keeps its files
#   ./gpu_monitor.sh           in the foreground until SIGTERM; with --all-nodes inside a Slurm
#                              job, one srun task per node beside the workload (fixture.sbatch)
#
# The monitor never fails the run: without nvidia-smi, or when dmon cannot start, it says why
# on stderr and exits 0. Environment: EVIDENCE_DIR (default: evidence), NODE_NAME (default:
# hostname -s), read as collect_evidence.sh reads them.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=fixture.env
source "${HERE}/fixture.env"

DMON_SELECT=pucet
DMON_INTERVAL_S=5
DMON_GPUS_PER_CAPTURE=4
DMON_PART_SAMPLES=8640
DMON_MAX_PARTS=14

EVIDENCE_DIR="${EVIDENCE_DIR:-evidence}"
ALL_NODES=0
MODE=run
for arg in "$@"; do
    case "${arg}" in
        --all-nodes) ALL_NODES=1 ;;
        --start) MODE=start ;;
        --stop) MODE=stop ;;
        -h | --help)
            sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "gpu_monitor: unknown option: ${arg}" >&2
            exit 2
            ;;
    esac
done
if [[ "${ALL_NODES}" -eq 1 ]]; then
    if [[ "${MODE}" != run ]]; then
        echo "gpu_monitor: --all-nodes runs in the foreground; stop it by signalling srun" >&2
        exit 2
    fi
    # --overlap: the monitor shares the nodes' CPUs and GPUs with the workload's steps.
    exec srun --overlap --nodes="${NODES}" --ntasks="${NODES}" --ntasks-per-node=1 \
        --gpus-per-node="${GPUS_PER_NODE}" bash "${HERE}/gpu_monitor.sh"
fi

HOST_NAME="${NODE_NAME:-$(hostname -s)}"
DIR="${EVIDENCE_DIR}/${HOST_NAME}"
# Outside every node folder, so upload_evidence.sh does not send it.
STATE_DIR="${EVIDENCE_DIR}/.gpu-monitor"
PID_FILE="${STATE_DIR}/${HOST_NAME}.pid"
LOG_FILE="${STATE_DIR}/${HOST_NAME}.log"
FULL_HOST="$(hostname -f 2> /dev/null || hostname -s 2> /dev/null || echo unknown)"

say() {
    printf 'gpu_monitor: %s: %s\n' "${HOST_NAME}" "$*" >&2
}

# skip WHY: no capture on this node; the run goes on either way.
skip() {
    if [[ "${GPU_MONITOR_REQUIRED}" -eq 1 ]]; then
        say "$1: no GPU monitor capture. The fixture requires one (nvidia-smi-dmon), so the" \
            "burn-in will show it missing for this node; the workload goes on."
    else
        say "$1: no GPU monitor capture; the workload goes on."
    fi
    exit 0
}

GPUS=()
read_gpus() {
    command -v nvidia-smi > /dev/null 2>&1 || skip "nvidia-smi not found"
    local listing line rc=0
    listing="$(nvidia-smi --query-gpu=index --format=csv,noheader 2>&1)" || rc=$?
    while IFS= read -r line; do
        line="${line//[[:space:]]/}"
        if [[ "${line}" =~ ^[0-9]+$ ]]; then GPUS+=("${line}"); fi
    done <<< "${listing}"
    if [[ "${#GPUS[@]}" -eq 0 ]]; then
        skip "nvidia-smi lists no GPU (exit status ${rc}: ${listing%%$'\n'*})"
    fi
}

# running PID: the process has not exited (a child that exited but is not reaped has).
running() {
    local state
    state="$(ps -o stat= -p "$1" 2> /dev/null)" || return 1
    state="${state//[[:space:]]/}"
    [[ -n "${state}" && "${state}" != Z* ]]
}

# finish PID SECONDS: SIGTERM, SIGKILL once SECONDS have passed; reaped once it is gone (a
# process stuck in the driver may outlive SIGKILL: it is left behind, not waited for).
finish() {
    local pid="$1" ticks=$(($2 * 4))
    kill -TERM "${pid}" 2> /dev/null || true
    while running "${pid}" && [[ "${ticks}" -gt 0 ]]; do
        sleep 0.25
        ticks=$((ticks - 1))
    done
    if running "${pid}"; then
        kill -KILL "${pid}" 2> /dev/null || true
        sleep 0.25
    fi
    if ! running "${pid}"; then wait "${pid}" 2> /dev/null || true; fi
}

# tidy FILE: drop a row cut off when dmon was stopped mid-write; remove a file dmon wrote
# nothing to (status 1).
tidy() {
    local file="$1" size cut
    if [[ -n "$(tail -c 1 "${file}")" ]]; then
        size="$(wc -c < "${file}")"
        cut="$(tail -n 1 "${file}" | wc -c)"
        truncate -s "$((size - cut))" "${file}" || true
    fi
    if ! awk 'NR > 1 && NF { found = 1; exit } END { exit !found }' "${file}"; then
        rm -f "${file}"
        return 1
    fi
}

DMON=(nvidia-smi dmon -s "${DMON_SELECT}" -o DT -d "${DMON_INTERVAL_S}" -c "${DMON_PART_SAMPLES}")
# Line-buffered, so each row reaches the file whole even when dmon is stopped.
if command -v stdbuf > /dev/null 2>&1; then DMON=(stdbuf -oL "${DMON[@]}"); fi

# capture IDS LABEL: dmon over the GPUs IDS (comma-separated), part after part, until SIGTERM.
capture() {
    local ids="$1" label="$2" part=1 rc file collected
    STOPPING=0
    DMON_PID=""
    trap 'STOPPING=1; if [[ -n "${DMON_PID}" ]]; then kill -TERM "${DMON_PID}" 2> /dev/null || true; fi' TERM
    while [[ "${part}" -le "${DMON_MAX_PARTS}" && "${STOPPING}" -eq 0 ]]; do
        file="${DIR}/nvidia-smi-dmon-${label}-part${part}.txt"
        TZ=UTC printf -v collected '%(%Y-%m-%dT%H:%M:%SZ)T' -1
        printf '# clusterbid-evidence node=%s host=%s collected=%s\n' \
            "${HOST_NAME}" "${FULL_HOST:-unknown}" "${collected}" > "${file}"
        # stderr too: what nvidia-smi prints when a GPU is lost belongs beside its rows.
        "${DMON[@]}" -i "${ids}" >> "${file}" 2>&1 &
        DMON_PID=$!
        if [[ "${STOPPING}" -eq 1 ]]; then kill -TERM "${DMON_PID}" 2> /dev/null || true; fi
        rc=0
        wait "${DMON_PID}" || rc=$?
        if [[ "${STOPPING}" -eq 1 ]]; then finish "${DMON_PID}" 10; fi
        DMON_PID=""
        if ! tidy "${file}"; then
            [[ "${STOPPING}" -eq 1 ]] || say "nvidia-smi dmon for GPUs ${ids} printed nothing" \
                "(exit status ${rc}); not restarted"
            return 0
        fi
        if [[ "${STOPPING}" -eq 1 ]]; then return 0; fi
        if [[ "${rc}" -ne 0 ]]; then
            say "nvidia-smi dmon for GPUs ${ids} stopped with exit status ${rc}; not restarted." \
                "What it printed is in ${file}"
            return 0
        fi
        part=$((part + 1))
    done
    say "GPUs ${ids}: ${DMON_MAX_PARTS} parts of ${DMON_PART_SAMPLES} samples, the most one run" \
        "keeps; capture stopped"
}

run_foreground() {
    read_gpus
    mkdir -p "${DIR}" || skip "cannot create ${DIR}"
    local i ids label group=() pid
    PIDS=()
    STOPPING=0
    trap 'STOPPING=1; kill -TERM "${PIDS[@]}" 2> /dev/null || true' TERM INT HUP
    for ((i = 0; i < ${#GPUS[@]}; i += DMON_GPUS_PER_CAPTURE)); do
        group=("${GPUS[@]:i:DMON_GPUS_PER_CAPTURE}")
        ids="$(IFS=','; echo "${group[*]}")"
        label="gpu${group[0]}"
        if [[ "${#group[@]}" -gt 1 ]]; then label+="-${group[-1]}"; fi
        capture "${ids}" "${label}" &
        PIDS+=("$!")
    done
    say "watching GPUs ${GPUS[*]} every ${DMON_INTERVAL_S} s into ${DIR}/nvidia-smi-dmon-*.txt"
    wait || true
    if [[ "${STOPPING}" -eq 1 ]]; then
        for pid in "${PIDS[@]}"; do finish "${pid}" 15; done
    fi
    say "stopped; the capture is in ${DIR}"
    exit 0
}

start_background() {
    read_gpus
    mkdir -p "${STATE_DIR}" || skip "cannot create ${STATE_DIR}"
    if [[ -f "${PID_FILE}" ]] && running "$(cat "${PID_FILE}")"; then
        say "already running (pid $(cat "${PID_FILE}"))"
        exit 0
    fi
    NODE_NAME="${HOST_NAME}" EVIDENCE_DIR="${EVIDENCE_DIR}" \
        nohup bash "${HERE}/gpu_monitor.sh" > "${LOG_FILE}" 2>&1 < /dev/null &
    echo "$!" > "${PID_FILE}"
    say "started in the background (pid $!); stop it with: ${HERE}/gpu_monitor.sh --stop"
}

# command_line PID: the process's whole command line; empty when it is gone. Not `ps -o args=`
# alone: it cuts the line at $COLUMNS, and a bundle unpacked in a long path is cut before its
# script's name. Without /proc or ps there is no telling: the pid is trusted.
command_line() {
    if [[ -d /proc ]]; then
        if [[ -r "/proc/$1/cmdline" ]]; then tr '\0' ' ' < "/proc/$1/cmdline"; fi
    elif command -v ps > /dev/null 2>&1; then
        ps -ww -o args= -p "$1" 2> /dev/null || true
    else
        echo "gpu_monitor.sh"
    fi
}

stop_background() {
    if [[ ! -f "${PID_FILE}" ]]; then
        say "no monitor was started on this node (no ${PID_FILE})"
        exit 0
    fi
    local pid ticks=120
    pid="$(cat "${PID_FILE}")"
    # Only a process that is still this monitor: a pid left from a reboot may name another.
    if [[ "$(command_line "${pid}")" == *gpu_monitor.sh* ]]; then
        kill -TERM "${pid}" 2> /dev/null || true
        while running "${pid}" && [[ "${ticks}" -gt 0 ]]; do
            sleep 0.25
            ticks=$((ticks - 1))
        done
        if running "${pid}"; then say "pid ${pid} is still stopping after 30 s"; fi
    fi
    if [[ -f "${LOG_FILE}" ]]; then cat "${LOG_FILE}" >&2; fi
    rm -f "${PID_FILE}"
}

case "${MODE}" in
    start) start_background ;;
    stop) stop_background ;;
    *) run_foreground ;;
esac
