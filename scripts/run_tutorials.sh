#!/usr/bin/env bash
# Runs the two multi-worker tutorials (SEEDS.md 000 and 004) with texflow as the pages
# do: two worker processes, each with TF_CONFIG (task index 0 and 1); worker 0, the
# chief, starts the coordinator at its TF_CONFIG address. Logs: job_0.log, job_1.log
# in the output folder. Usage: scripts/run_tutorials.sh [keras|ctl|both] [OUT_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/tutorials" && pwd)"
root="$(dirname "$(dirname "$here")")"
which="${1:-both}"
out="${2:-$(mktemp -d /tmp/texflow-tutorials.XXXX)}"
python="${PYTHON:-$root/.venv/bin/python}"
mkdir -p "$out"
export PYTHONPATH="$root/py${PYTHONPATH:+:$PYTHONPATH}"

port() { "$python" -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }

run() {  # name script
  local p0 p1 cluster
  p0=$(port); p1=$(port)
  cluster="{\"worker\": [\"localhost:$p0\", \"localhost:$p1\"]}"
  (cd "$here" && TF_CONFIG="{\"cluster\": $cluster, \"task\": {\"type\": \"worker\", \"index\": 0}}" \
      "$python" "$2" &> "$out/$1_job_0.log") &
  local first=$!
  (cd "$here" && TF_CONFIG="{\"cluster\": $cluster, \"task\": {\"type\": \"worker\", \"index\": 1}}" \
      "$python" "$2" &> "$out/$1_job_1.log")
  wait "$first"
  echo "== $1: worker 0 (chief)"; grep -v '^\s*$' "$out/$1_job_0.log" | tail -n 12
}

case "$which" in
  keras) run keras keras_multi_worker.py ;;
  ctl) run ctl main.py ;;
  both) run keras keras_multi_worker.py; run ctl main.py ;;
esac
echo "logs in $out"
