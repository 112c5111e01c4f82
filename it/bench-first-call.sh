#!/usr/bin/env bash
# The Python package's first call in a fresh process beside the command line's cold run, on the
# same study (it/bench_first_call.py): RUNS (3) runs of each, alternating; prints each run and the
# medians, with the CPU model. Benchmarks report; nothing here asserts on time.
# Usage: it/bench-first-call.sh   (after it/python-tests.sh made target/python-venv)
# NLSPARK_CDS=0 compares without class-data sharing (both sides).
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PY=${NLSPARK_BENCH_PYTHON:-$REPO_ROOT/target/python-venv/bin/python}
RUNS=${RUNS:-3}
WORK=$REPO_ROOT/target/bench-first-call
rm -rf "$WORK"
mkdir -p "$WORK"
"$PY" "$IT_DIR/bench_first_call.py" prepare "$WORK/study"
log "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
# the command line's class-data archive is made by its first run, as a user's first run makes it
"$REPO_ROOT/bin/nlspark" one-sample --input "$WORK/study/list.txt" --tfce --permutations 10 \
  --tail two --output "$WORK/warm" --quiet > /dev/null 2>&1
# and the Python package's local sessions' archive by a first session (it becomes the archive
# once it has rested a minute: python/nlspark/_session.py)
(unset SPARK_HOME; "$PY" "$IT_DIR/bench_first_call.py" python "$WORK/study" > /dev/null 2>&1)
sleep 65
for run in $(seq "$RUNS"); do
  start=$(date +%s.%N)
  "$REPO_ROOT/bin/nlspark" one-sample --input "$WORK/study/list.txt" --tfce --permutations 1000 \
    --tail two --output "$WORK/cli-$run" --quiet > /dev/null
  cli=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  phases=$(unset SPARK_HOME; "$PY" "$IT_DIR/bench_first_call.py" python "$WORK/study" 2> /dev/null | tail -n 1)
  whole=$(echo "$(date +%s.%N) - $start" | bc)
  printf 'run %d: command line %.2f s; python process %.2f s %s\n' "$run" "$cli" "$whole" "$phases"
done
