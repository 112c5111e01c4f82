#!/usr/bin/env bash
# Browser check of report.html (issues 14, 24): on a small LAS-stored grid with a blob planted at
# +x mm, runs through the command line a TFCE one-sample test, a glm with two contrasts, a
# one-sample test on noise (nothing survives) and a bootstrap, regenerates each report.html with
# `nlspark report`, opens it in headless Chromium (Debian's chromium, installed when missing) and
# checks: it loads with no console errors, fetches nothing, every image decodes at its declared
# size, the counts shown equal numpy's counts of the .npy outputs, each inference's part gives
# numpy's count or says nothing survives (and then draws no map), the montages carry the
# orientation letters (L/R, A/P, S/I) and the blob at +x mm is drawn in the right half of its
# axial slice, and the largest cluster's peak lies in the planted blob.
# Writes docs/report-tfce.png, docs/report-glm.png and docs/report-nothing.png (docs/guide/report.md
# shows them). Prints "report-browser: N passed, M failed"; exit 0 only when M is 0.
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

if ! command -v chromium >/dev/null 2>&1; then
  log "installing Debian's chromium (apt-get)"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
    >/dev/null || die "cannot install chromium"
fi
command -v node >/dev/null || die "node is needed to drive Chromium (DevTools protocol)"
# Debian's python3 with numpy to recompute the counts (use_nibabel installs python3-nibabel, which
# brings python3-numpy, when missing: the python3 first on PATH may have no numpy).
use_nibabel

mkdir -p "$REPO_ROOT/docs"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/data"
"$PYTHON" it/report_browser_fixture.py "$WORK/data" > "$WORK/planted.json"
log "fixture: $(cat "$WORK/planted.json")"

passed=0
failed=0
tally() { # $1: verify output; adds its RESULT line to the totals
  local p f
  read -r _ p f < <(grep '^RESULT ' <<<"$1")
  passed=$((passed + p))
  failed=$((failed + f))
}
expect() { # $1 description, then a command: PASS when it succeeds
  local what=$1
  shift
  if "$@"; then
    echo "PASS $what"
    passed=$((passed + 1))
  else
    echo "FAIL $what"
    failed=$((failed + 1))
  fi
}

# Relative paths from the work directory: the page (and the screenshots) show no host path.
cd "$WORK"
for run in tfce glm nothing bootstrap; do
  out=$run
  case $run in
    tfce) args=(one-sample --input data/X.nii.gz --mask data/mask.nii.gz --stat t
      --permutations 500 --tfce) ;;
    glm) args=(glm --input data/X.nii.gz --mask data/mask.nii.gz --design data/design.csv
      --contrasts data/contrasts.csv --errors symmetric --permutations 500) ;;
    nothing) args=(one-sample --input data/noise.nii.gz --mask data/mask.nii.gz --stat t
      --permutations 500) ;;
    bootstrap) args=(bootstrap --input data/X.npy --stat mean --samples 300) ;;
  esac
  log "nlspark ${args[*]}"
  "$REPO_ROOT/bin/nlspark" "${args[@]}" --output "$out" > "$WORK/$run.stdout"
  cat "$WORK/$run.stdout"
  expect "$run: the result names $out/report.html" \
    grep -qxF "report: $WORK/$out/report.html" "$WORK/$run.stdout"
  expect "$run: the run wrote report.html" test -f "$out/report.html"
  # the .npy run has no grid: give it the inputs' mask, so the page draws maps
  [[ -f $out/mask.nii.gz || $run != bootstrap ]] || cp data/mask.nii.gz "$out/mask.nii.gz"
  "$REPO_ROOT/bin/nlspark" report "$out" > "$WORK/$run.report.stdout"
  cat "$WORK/$run.report.stdout"
  expect "$run: nlspark report names the page, then a peak in mm" \
    test "$(head -n 1 "$WORK/$run.report.stdout")" == "report: $out/report.html"
  expect "$run: nlspark report's last line names a peak in mm" \
    grep -Eq ' at \(-?[0-9]+, -?[0-9]+, -?[0-9]+\) mm' <(tail -n 1 "$WORK/$run.report.stdout")
  shot=()
  [[ $run == bootstrap ]] || shot=("$REPO_ROOT/docs/report-$run.png")
  node --experimental-websocket --no-warnings "$IT_DIR/report-browser-check.mjs" chromium \
    "$out/report.html" "${shot[@]}" > "$WORK/$run.page.json"
  planted=()
  [[ $run == tfce ]] && planted=("$WORK/planted.json")
  set +e
  verdict=$("$PYTHON" "$IT_DIR/report_browser_verify.py" "$WORK/$run.page.json" "$out" "${planted[@]}")
  set -e
  while IFS= read -r line; do
    [[ $line == RESULT* ]] || echo "$run: $line"
  done <<<"$verdict"
  tally "$verdict"
  if [[ $run != bootstrap ]]; then
    set +e
    verdict=$("$PYTHON" "$IT_DIR/report_browser_parts.py" "$WORK/$run.page.json" "$out" \
      "$WORK/planted.json" "$run")
    set -e
    while IFS= read -r line; do
      [[ $line == RESULT* ]] || echo "$run: $line"
    done <<<"$verdict"
    tally "$verdict"
    expect "screenshot written to docs/report-$run.png" test -s "$REPO_ROOT/docs/report-$run.png"
  fi
done
echo "report-browser: $passed passed, $failed failed"
[[ $failed == 0 ]]
