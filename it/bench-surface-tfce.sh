#!/usr/bin/env bash
# Surface TFCE per map (report only; nothing gates on time): on nilearn's fsaverage5 white
# surface (10,242 vertices), the t-to-z conversion and PALM's TFCE of one map, beside the
# volumetric TFCE of a cube of about as many voxels (org.nlspark.bench.SurfaceTfceBenchmark).
# Needs the Python venv of the tests (target/python-venv, with nilearn: it/python-tests.sh makes
# it). Usage: it/bench-surface-tfce.sh [DF] [REPEATS]
set -euo pipefail
IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$IT_DIR/.." && pwd)
cd "$REPO_ROOT"
python=target/python-venv/bin/python
[[ -x $python ]] || { echo "bench-surface-tfce: run it/python-tests.sh first (it makes $python)" >&2; exit 1; }
mvn -q -B -ntp -DskipTests package -pl benchmarks -am >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" - "$work/lh.white.surf.gii" <<'PY'
import gzip, os, sys
import nilearn
path = os.path.join(os.path.dirname(nilearn.__file__), "datasets", "data", "fsaverage5",
                    "white_left.gii.gz")
with gzip.open(path) as f, open(sys.argv[1], "wb") as out:
    out.write(f.read())
PY
echo "CPU: $(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)"
java -Xmx2g --add-modules jdk.incubator.vector \
  -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  org.nlspark.bench.SurfaceTfceBenchmark "$work/lh.white.surf.gii" "${1:-19}" "${2:-200}" 2>/dev/null
