#!/usr/bin/env bash
# Clusterbid acceptance: upload the run's evidence to the workbench.
#
#   CLUSTERBID_URL=https://clusterbid.example CLUSTERBID_TOKEN=... ./upload_evidence.sh RUN_ID
#
# Sends every file under evidence/<node>/ with its node name (a GPU monitor capture also names
# its kind), then the cluster-wide files under logs/ and results/ without one. One curl call
# per file, so a failed upload names its file; the exit status is non-zero when any failed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=fixture.env
source "${HERE}/fixture.env"

if [[ $# -ne 1 || "$1" == -* ]]; then
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
: "${CLUSTERBID_URL:?set CLUSTERBID_URL to the workbench address}"
: "${CLUSTERBID_TOKEN:?set CLUSTERBID_TOKEN to your API token}"

RUN_ID="$1"
UPLOAD_PATH="${EVIDENCE_UPLOAD_PATH//\{run_id\}/${RUN_ID}}"
URL="${CLUSTERBID_URL%/}${UPLOAD_PATH}"
EVIDENCE_DIR="${EVIDENCE_DIR:-evidence}"
STATUS=0

# upload FILE [NODE [KIND]]
upload() {
    local file="$1" node="${2:-}" kind="${3:-}"
    local form=(-F "file=@${file}")
    if [[ -n "${node}" ]]; then form+=(-F "node=${node}"); fi
    if [[ -n "${kind}" ]]; then form+=(-F "kind=${kind}"); fi
    if curl --fail --silent --show-error "${form[@]}" \
        -H "Authorization: Token ${CLUSTERBID_TOKEN}" "${URL}" > /dev/null; then
        echo "uploaded ${file}" >&2
    else
        echo "upload FAILED: ${file}" >&2
        STATUS=1
    fi
}

shopt -s nullglob
for node_dir in "${EVIDENCE_DIR}"/*/; do
    node="$(basename "${node_dir}")"
    for file in "${node_dir}"*; do
        [[ -f "${file}" ]] || continue
        case "${file##*/}" in
            # Named, so a capture dmon cut short before its table reads as a dmon file whose
            # first line says why, rather than as an unrecognised one.
            nvidia-smi-dmon-*.txt) upload "${file}" "${node}" nvidia-smi-dmon ;;
            *) upload "${file}" "${node}" ;;
        esac
    done
done
for file in logs/* results/*; do
    if [[ -f "${file}" ]]; then upload "${file}"; fi
done
exit "${STATUS}"
