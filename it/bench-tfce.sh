#!/usr/bin/env bash
# TFCE per map, nlspark against the textbook loop (nilearn's: 100 thresholds, each labelled with
# scipy.ndimage.label) on the same 2 mm MNI-sized map (~230,000 mask voxels). Checks that the two
# enhanced maps agree to 1e-10 relative and prints both times and the ratio, for the upper and
# the two-sided tail. Report only: the ratio does not gate (the goal is >= 50x).
# Needs python3 with numpy and scipy (Debian: python3-scipy). Usage: it/bench-tfce.sh [SEED]
set -euo pipefail
IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$IT_DIR/.." && pwd)
seed=${1:-12}
cd "$REPO_ROOT"

python3 -c 'import numpy, scipy' 2>/dev/null \
  || { echo "bench-tfce: needs python3 with numpy and scipy (apt-get install python3-scipy)" >&2; exit 1; }

# Build inside the reactor (no install): the benchmark runs from the module class folders.
mvn -q -B -ntp -DskipTests package -pl benchmarks -am >&2
cp="core/target/classes:benchmarks/target/classes"
if [[ -f benchmarks/target/classpath.txt ]]; then
  cp="$cp:$(cat benchmarks/target/classpath.txt)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$IT_DIR/bench_tfce.py" make "$work" "$seed"
java -Xmx2g -cp "$cp" org.nlspark.bench.TfceBenchmark "$work/mask.npy" "$work/map.npy" \
  "$work/java" 50 | tee "$work/java.jsonl"
echo "CPU: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)"
for tail in upper two; do
  python3 "$IT_DIR/bench_tfce.py" loop "$work" "$tail" | tee "$work/python-$tail.json"
  python3 "$IT_DIR/bench_tfce.py" compare "$work/java-$tail.npy" "$work/python-$tail.npy" 1e-10
  line=$(grep "\"tail\": \"$tail\"" "$work/java.jsonl")
  # shellcheck disable=SC2001  # a capture group, not a plain substitution
  java_ms=$(sed 's/.*"median_ms": \([0-9.]*\).*/\1/' <<<"$line")
  # shellcheck disable=SC2001
  java_cpu=$(sed 's/.*"cpu_median_ms": \([0-9.]*\).*/\1/' <<<"$line")
  py_ms=$(sed 's/.*"python_best_ms": \([0-9.]*\).*/\1/' "$work/python-$tail.json")
  py_cpu=$(sed 's/.*"python_cpu_best_ms": \([0-9.]*\).*/\1/' "$work/python-$tail.json")
  awk -v t="$tail" -v j="$java_ms" -v p="$py_ms" -v jc="$java_cpu" -v pc="$py_cpu" 'BEGIN {
    printf "tail %s: wall nlspark %.2f ms (median of 50), textbook loop %.0f ms (best of 2): %.0fx;", t, j, p, p / j
    printf " CPU %.2f ms vs %.0f ms: %.0fx\n", jc, pc, pc / jc }'
done
