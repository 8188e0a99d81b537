#!/usr/bin/env bash
# Clusterbid acceptance: the agreed nccl-tests runs, one log per collective.
#
# Full run:       logs/nccl_<collective>.log                 (every node at once)
# Per-node run:   logs/nccl_<collective>_<node>.log          (when the fixture asks for it)
# Node pairs:     logs/nccl_<collective>_<nodeA>+<nodeB>.log (when the fixture asks for bisection)
#
# Environment:
#   LAUNCHER        srun or mpirun (default: srun inside a Slurm job, mpirun elsewhere)
#   HOSTS           comma-separated node names (default: the Slurm job's node list)
#   NCCL_TESTS_BIN  folder with the *_perf binaries (default: /opt/nccl-tests/build)
#   LOG_DIR         where the logs go (default: logs)
#   SRUN_MPI        srun --mpi plugin (default: pmix)
#   MPIRUN_ARGS     extra mpirun arguments, split on spaces
# Options: --dry-run prints the commands instead of running them.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=fixture.env
source "${HERE}/fixture.env"

NCCL_TESTS_BIN="${NCCL_TESTS_BIN:-/opt/nccl-tests/build}"
LOG_DIR="${LOG_DIR:-logs}"
SRUN_MPI="${SRUN_MPI:-pmix}"
LAUNCHER="${LAUNCHER:-}"
DRY_RUN=0

usage() {
    sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run_nccl_tests: unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

if [[ -z "${LAUNCHER}" ]]; then
    if [[ -n "${SLURM_JOB_ID:-}" ]]; then LAUNCHER="srun"; else LAUNCHER="mpirun"; fi
fi
if [[ "${LAUNCHER}" != "srun" && "${LAUNCHER}" != "mpirun" ]]; then
    echo "run_nccl_tests: LAUNCHER must be srun or mpirun, not '${LAUNCHER}'" >&2
    exit 2
fi

HOST_LIST=()
if [[ -n "${HOSTS:-}" ]]; then
    IFS=',' read -r -a HOST_LIST <<< "${HOSTS}"
elif [[ -n "${SLURM_JOB_NODELIST:-}" ]]; then
    mapfile -t HOST_LIST < <(scontrol show hostnames "${SLURM_JOB_NODELIST}")
else
    echo "run_nccl_tests: set HOSTS=node-a,node-b,... or run inside a Slurm job" >&2
    exit 2
fi
if [[ "${#HOST_LIST[@]}" -ne "${NODES}" ]]; then
    echo "run_nccl_tests: the fixture is for ${NODES} nodes, got ${#HOST_LIST[@]}: ${HOST_LIST[*]}" >&2
    exit 2
fi

read -r -a COLLECTIVE_LIST <<< "${COLLECTIVES}"
read -r -a ENV_NAMES <<< "${RUNTIME_ENV_NAMES}"
read -r -a EXTRA_MPIRUN <<< "${MPIRUN_ARGS:-}"
PERF_ARGS=(
    -b "${MIN_BYTES}" -e "${MAX_BYTES}" -f "${STEP_FACTOR}" -g 1 -c "${NCCL_CHECK}"
    -n "${NCCL_ITERS}" -w "${NCCL_WARMUP}" -d "${NCCL_DATATYPE}"
)

# launch HOSTS_CSV NODE_COUNT COMMAND...: one task per GPU on the named nodes.
launch() {
    local hosts_csv="$1" node_count="$2"
    shift 2
    local tasks=$((node_count * GPUS_PER_NODE))
    local cmd=()
    if [[ "${LAUNCHER}" == "srun" ]]; then
        cmd=(srun --nodes="${node_count}" --ntasks="${tasks}" --ntasks-per-node="${GPUS_PER_NODE}"
            --nodelist="${hosts_csv}" --mpi="${SRUN_MPI}" --kill-on-bad-exit=1 "$@")
    else
        local host host_names=() host_slots=()
        IFS=',' read -r -a host_names <<< "${hosts_csv}"
        for host in "${host_names[@]}"; do host_slots+=("${host}:${GPUS_PER_NODE}"); done
        local slots_csv
        slots_csv="$(IFS=','; echo "${host_slots[*]}")"
        local env_args=() name
        for name in "${ENV_NAMES[@]}"; do env_args+=(-x "${name}"); done
        cmd=(mpirun -np "${tasks}" -N "${GPUS_PER_NODE}" --host "${slots_csv}" --bind-to numa
            "${env_args[@]}" "${EXTRA_MPIRUN[@]}" "$@")
    fi
    printf '%q ' "${cmd[@]}" >> "${LOG_DIR}/launch_commands.txt"
    printf '\n' >> "${LOG_DIR}/launch_commands.txt"
    if [[ "${DRY_RUN}" -eq 1 ]]; then
        printf '%q ' "${cmd[@]}"
        printf '\n'
        return 0
    fi
    "${cmd[@]}"
}

STATUS=0
# run_one COLLECTIVE LABEL HOSTS_CSV NODE_COUNT
run_one() {
    local collective="$1" label="$2" hosts_csv="$3" node_count="$4"
    local log="${LOG_DIR}/nccl_${collective}.log"
    if [[ -n "${label}" ]]; then log="${LOG_DIR}/nccl_${collective}_${label}.log"; fi
    echo "run_nccl_tests: ${collective} on ${hosts_csv} -> ${log}" >&2
    if ! launch "${hosts_csv}" "${node_count}" "${NCCL_TESTS_BIN}/${collective}_perf" \
        "${PERF_ARGS[@]}" > "${log}" 2>&1; then
        echo "run_nccl_tests: ${collective} on ${hosts_csv} FAILED (see ${log})" >&2
        STATUS=1
    fi
}

mkdir -p "${LOG_DIR}"
: > "${LOG_DIR}/launch_commands.txt"
ALL_HOSTS="$(IFS=','; echo "${HOST_LIST[*]}")"

if [[ "${PER_NODE}" -eq 1 ]]; then
    for host in "${HOST_LIST[@]}"; do
        for collective in "${COLLECTIVE_LIST[@]}"; do run_one "${collective}" "${host}" "${host}" 1; done
    done
else
    for collective in "${COLLECTIVE_LIST[@]}"; do run_one "${collective}" "" "${ALL_HOSTS}" "${NODES}"; done
fi

if [[ "${BISECTION}" -eq 1 ]]; then
    for ((i = 0; i < ${#HOST_LIST[@]}; i++)); do
        for ((j = i + 1; j < ${#HOST_LIST[@]}; j++)); do
            a="${HOST_LIST[i]}"
            b="${HOST_LIST[j]}"
            for collective in "${COLLECTIVE_LIST[@]}"; do
                run_one "${collective}" "${a}+${b}" "${a},${b}" 2
            done
        done
    done
fi

exit "${STATUS}"
