#!/usr/bin/env bash
# Compares glm's exchangeability blocks, sign flips and variance groups with PALM itself, run
# under Octave (a manual check, not part of bin/test: PALM is not published in a package
# registry). 24 subjects x 40 tests, intercept + age + group; per case, the number of distinct
# draws each tool reports and the largest difference of every map. PALM writes CSV maps with
# four decimals, so the copy run here writes them at full precision (one format string changed
# in a temporary copy; the user's PALM is not touched).
#
# Usage: it/tools/palm-compare.sh PALM_DIR [PYTHON]
#   PALM_DIR: a PALM checkout (palm.m); needs octave and octave-statistics on PATH, bin/nlspark
#   built (mvn -B install -DskipTests), and a Python with numpy (default: python3).
#   PALM_WELCH_DF=1: the copy's fastv takes Welch's degrees of freedom (1 / bsum, not 1/3 of
#   it), to check that nlspark's v-to-z counting is PALM's but for that df.
set -euo pipefail
PALM_SRC=${1:?usage: it/tools/palm-compare.sh PALM_DIR [PYTHON]}
PY=$(command -v "${2:-python3}" || true)
[[ -n $PY ]] || { echo "palm-compare: no Python ${2:-python3}" >&2; exit 2; }
PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
command -v octave >/dev/null || { echo "palm-compare: octave is not on PATH" >&2; exit 2; }
[[ -f $PALM_SRC/palm.m ]] || { echo "palm-compare: no palm.m in $PALM_SRC" >&2; exit 2; }
export SPARK_LOCAL_IP=127.0.0.1
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$PALM_SRC" "$WORK/palm"
sed -i "s/'precision','%0.4f'/'precision','%0.17g'/" "$WORK/palm/palm_miscwrite.m"
if [[ ${PALM_WELCH_DF:-0} == 1 ]]; then
  # in fastv and fastv3d only (fastg's identical line is Welch's already)
  awk '/^function \[G,df2\] = fastv(3d)?\(/ {v = 1} /^function / && !/fastv(3d)?\(/ {v = 0}
    v && /df2  = 1\/3\.\/bsum;/ {sub(/1\/3\.\/bsum/, "1./bsum")} {print}' \
    "$WORK/palm/palm_core.m" >"$WORK/palm_core.m" && mv "$WORK/palm_core.m" "$WORK/palm/palm_core.m"
  [[ $(grep -c 'df2  = 1\./bsum;' "$WORK/palm/palm_core.m") == 2 ]] \
    || { echo "palm-compare: fastv's degrees of freedom were not found to patch" >&2; exit 2; }
fi
cd "$WORK"
"$PY" - <<'PYEOF'
import numpy as np
rng = np.random.default_rng(7)
n, V = 24, 40
age = rng.normal(40, 8, n)
group = np.tile([0.0, 1.0], n // 2)
sd = np.where(np.arange(n) < n // 2, 1.0, 2.5)
y = rng.normal(size=(n, V)) * sd[:, None]
y[:, :10] += 0.08 * (age[:, None] - 40)
d = np.column_stack([np.ones(n), age, group])
np.savetxt("y.csv", y, delimiter=",", fmt="%.17g")
np.save("y.npy", y)
np.savetxt("d.csv", d, delimiter=",", fmt="%.17g")
with open("design.csv", "w") as f:
    f.write("intercept,age,group\n" + "".join(",".join("%.17g" % x for x in r) + "\n" for r in d))
np.savetxt("t.csv", [[0, 1, 0], [0, 0, 1]], delimiter=",", fmt="%d")
open("con.csv", "w").write("intercept,age,group\n0,1,0\n0,0,1\n")
ids = np.arange(1, n + 1)
pairs = np.arange(n) // 2 + 1
fours = np.arange(n) // 4 + 1
sib = np.where(np.arange(n) % 4 < 2, 10, 1000)
def save(name, *cols):
    np.savetxt(name, np.column_stack(cols), delimiter=",", fmt="%d")
save("within.csv", -np.ones(n, int), pairs, ids)
save("whole.csv", np.ones(n, int), -pairs, ids)
save("twins.csv", -np.ones(n, int), -fours, sib, ids)
np.savetxt("vg.csv", np.where(np.arange(n) < n // 2, 1, 2), fmt="%d")
PYEOF

# name | PALM options | glm options | statistic
# (vg: v equals PALM's; its p-values differ where the degrees of freedom are few, because PALM's
# fastv converts v to z with a third of Welch's degrees of freedom and nlspark with Welch's)
CASES=(
  "within|-eb within.csv|--exchangeability-blocks within.csv|tstat"
  "twins|-eb twins.csv|--exchangeability-blocks twins.csv|tstat"
  "whole|-eb whole.csv|--exchangeability-blocks whole.csv --seed 3|tstat"
  "flips|-eb whole.csv -ise|--exchangeability-blocks whole.csv --errors symmetric|tstat"
  "vg|-eb within.csv -vg vg.csv|--exchangeability-blocks within.csv --variance-groups vg.csv|vstat"
)
for case in "${CASES[@]}"; do
  IFS='|' read -r name palm_opts glm_opts stat <<<"$case"
  # shellcheck disable=SC2086
  octave --no-gui --quiet --eval "addpath('$WORK/palm'); palm('-i','y.csv','-d','d.csv','-t','t.csv',$(printf "'%s'," $palm_opts)'-n','5000','-o','$name')" \
    >"$name.palm.log" 2>&1 || true
  # shellcheck disable=SC2086
  "$ROOT/bin/nlspark" glm --input y.npy --design design.csv --contrasts con.csv $glm_opts \
    --permutations 5000 --output "nl_$name" --quiet 2>/dev/null
  printf '%s: PALM: %s\n' "$name" "$(grep -m1 -o 'Number of possible [a-z-]* is [0-9.e+]*' "$name.palm.log")"
  "$PY" - "$name" "$stat" <<'PYEOF'
import json, sys
import numpy as np
name, stat = sys.argv[1], sys.argv[2]
s = json.load(open(f"nl_{name}/summary.json"))["resampling"]["contrasts"]
for c in (1, 2):
    d = s[f"{stat}{c}"]
    print(f"  {stat}{c}: nlspark {d['draws_possible']} distinct draws ({d['errors']},"
          f" enumerated {d['exact_enumeration']})")
    for suffix, nl in (("", ""), ("_uncp", "p_"), ("_fwep", "p_fwer_")):
        p = np.loadtxt(f"{name}_dat_{stat}{suffix}_c{c}.csv", delimiter=",").ravel()
        q = np.load(f"nl_{name}/{nl}{stat}{c}.npy").ravel()
        print(f"    {nl}{stat}{c:<2} max |nlspark - PALM| {np.max(np.abs(p - q)):.3g}"
              f"{'  (identical)' if np.array_equal(p, q) else ''}")
PYEOF
done
