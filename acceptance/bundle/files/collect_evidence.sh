#!/usr/bin/env bash
# Clusterbid acceptance: collect this node's evidence into evidence/<node>/.
#
#   nvidia-smi-topo.txt    nvidia-smi topo -m
#   nvidia-smi-query.csv   nvidia-smi --query-gpu=... --format=csv
#   dcgmi-diag.txt         dcgmi diag -r <agreed level>
#   ibstat.txt             ibstat
#   perfquery.txt          perfquery -C <ca> -P <port> for every HCA port (IB error counters)
#   perfquery-before.txt   the same counters before the workload (--counters-before only)
#   versions.txt           kernel, driver, CUDA, OFED, DCGM, NCCL and torch versions
#   commands.txt           every command run and its exit status
#   missing.txt            tools that were not found (only when some were missing)
#
# Each tool output and versions.txt start with one header line naming where and when it was
# collected (the workbench reads it and flags a file whose host is not its node label):
#   # clusterbid-evidence node=<NODE_NAME> host=<hostname -f> collected=<UTC ISO-8601>
# Run it once on every node, or once with --all-nodes inside a Slurm job (one srun task per
# node). The IB error counters count from the port's last reset, so run it with
# --counters-before before the workload too: the workbench then judges what the burn-in added.
# Environment: EVIDENCE_DIR (default: evidence), NODE_NAME (default: hostname -s).
# Exit status 3 when a tool was missing; the files that could be made are kept either way.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=fixture.env
source "${HERE}/fixture.env"

EVIDENCE_DIR="${EVIDENCE_DIR:-evidence}"
ALL_NODES=0
BEFORE=()

for arg in "$@"; do
    case "${arg}" in
        --all-nodes) ALL_NODES=1 ;;
        --counters-before) BEFORE=(--counters-before) ;;
        -h | --help)
            sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "collect_evidence: unknown option: ${arg}" >&2
            exit 2
            ;;
    esac
done
if [[ "${ALL_NODES}" -eq 1 ]]; then
    exec srun --nodes="${NODES}" --ntasks="${NODES}" --ntasks-per-node=1 \
        bash "${HERE}/collect_evidence.sh" "${BEFORE[@]}"
fi

HOST_NAME="${NODE_NAME:-$(hostname -s)}"
DIR="${EVIDENCE_DIR}/${HOST_NAME}"
mkdir -p "${DIR}"
# The full host name where it resolves, else the short one; the time from bash itself (UTC).
FULL_HOST="$(hostname -f 2> /dev/null || hostname -s 2> /dev/null || echo unknown)"
TZ=UTC printf -v COLLECTED '%(%Y-%m-%dT%H:%M:%SZ)T' -1
HEADER="# clusterbid-evidence node=${HOST_NAME} host=${FULL_HOST:-unknown} collected=${COLLECTED}"
# The before-workload reading keeps its own command log, so the later full run does not
# overwrite it.
COMMANDS="${DIR}/commands${BEFORE[0]:+-before}.txt"
: > "${COMMANDS}"
MISSING=()

# capture FILE COMMAND...: the command's output (stdout and stderr) goes to FILE.
capture() {
    local file="$1"
    shift
    if ! command -v "$1" > /dev/null 2>&1; then
        MISSING+=("${file}: $1 not found")
        return 0
    fi
    local rc=0
    printf '%s\n' "${HEADER}" > "${DIR}/${file}"
    "$@" >> "${DIR}/${file}" 2>&1 || rc=$?
    printf '%s\t%s\texit=%s\n' "${file}" "$*" "${rc}" >> "${COMMANDS}"
}

# perfquery reads one port at a time and does not print the HCA's name: query every port of
# every HCA by name, one "# Port counters: Lid N port P" block each.
ib_counters() {
    local ca port
    for ca in $(ibstat -l); do
        for port in /sys/class/infiniband/"${ca}"/ports/*; do
            [[ -e "${port}" ]] || continue
            perfquery -C "${ca}" -P "${port##*/}"
        done
    done
}
# counters FILE: the IB error counters of every port into FILE.
counters() {
    if command -v perfquery > /dev/null 2>&1; then
        capture "$1" ib_counters
    else
        MISSING+=("$1: perfquery not found")
    fi
}

if [[ "${#BEFORE[@]}" -gt 0 ]]; then
    counters perfquery-before.txt
    if [[ "${#MISSING[@]}" -gt 0 ]]; then
        printf '%s\n' "${MISSING[@]}" > "${DIR}/missing-before.txt"
        echo "collect_evidence: perfquery missing on ${HOST_NAME}, see ${DIR}/missing-before.txt" >&2
        exit 3
    fi
    echo "collect_evidence: IB counters before the workload are in ${DIR}" >&2
    exit 0
fi

capture nvidia-smi-topo.txt nvidia-smi topo -m
capture nvidia-smi-query.csv nvidia-smi \
    --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version,memory.total,ecc.errors.uncorrected.volatile.total,temperature.gpu,power.draw \
    --format=csv
capture dcgmi-diag.txt dcgmi diag -r "${DCGM_LEVEL}"
capture ibstat.txt ibstat

counters perfquery.txt

# version LABEL COMMAND...: one "label: value" line, "unknown" when the command fails.
version() {
    local label="$1" value
    shift
    value="$("$@" 2> /dev/null | head -n 1)" || value=""
    printf '%s: %s\n' "${label}" "${value:-unknown}"
}

nvcc_release() {
    nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'
}

{
    printf '%s\n' "${HEADER}"
    printf 'node: %s\n' "${HOST_NAME}"
    printf 'fixture_sha256: %s\n' "${FIXTURE_SHA256}"
    version kernel uname -r
    version driver nvidia-smi --query-gpu=driver_version --format=csv,noheader
    version cuda_toolkit nvcc_release
    version ofed ofed_info -s
    version dcgm dcgmi --version
    version torch python3 -c 'import torch; print(torch.__version__)'
    version torch_cuda python3 -c 'import torch; print(torch.version.cuda)'
    version nccl python3 -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))'
} > "${DIR}/versions.txt"

if [[ "${#MISSING[@]}" -gt 0 ]]; then
    printf '%s\n' "${MISSING[@]}" > "${DIR}/missing.txt"
    echo "collect_evidence: ${#MISSING[@]} tool(s) missing on ${HOST_NAME}, see ${DIR}/missing.txt" >&2
    exit 3
fi
echo "collect_evidence: evidence for ${HOST_NAME} is in ${DIR}" >&2
