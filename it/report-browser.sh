#!/usr/bin/env bash
# Browser check of report.html (issue 14): runs one-sample and bootstrap through the command
# line on a small grid with a planted blob, gives each output its mask (until image inputs write
# mask.nii.gz themselves), regenerates report.html with `nlspark report`, opens it in headless
# Chromium (Debian's chromium, installed when missing) and checks: it loads with no console
# errors, fetches nothing, every image decodes at its declared size, the counts shown equal
# numpy's counts of the .npy outputs, and the largest cluster's peak lies in the planted blob.
# Writes docs/report-screenshot.png (the README shows it). Prints "report-browser: N passed,
# M failed"; exit 0 only when M is 0.
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
python3 -c 'import numpy' 2>/dev/null || die "python3 with numpy is needed to recompute counts"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/data"
python3 it/report_browser_fixture.py "$WORK/data" > "$WORK/planted.json"
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

# Relative paths from the work directory: the page (and the screenshot) show no host path.
cd "$WORK"
for run in one-sample bootstrap; do
  out=$run
  case $run in
    one-sample) args=(one-sample --input data/X.npy --stat t --permutations 1000) ;;
    bootstrap) args=(bootstrap --input data/X.npy --stat mean --samples 300) ;;
  esac
  log "nlspark ${args[*]}"
  "$REPO_ROOT/bin/nlspark" "${args[@]}" --output "$out" > "$WORK/$run.stdout"
  cat "$WORK/$run.stdout"
  expect "$run: the result line names $out/report.html" \
    grep -q "report: $WORK/$out/report.html" "$WORK/$run.stdout"
  expect "$run: the run wrote report.html" test -f "$out/report.html"
  # the run had no grid (.npy input): give it the inputs' mask, as image inputs will
  [[ -f $out/mask.nii.gz ]] || cp data/mask.nii.gz "$out/mask.nii.gz"
  "$REPO_ROOT/bin/nlspark" report "$out" > "$WORK/$run.report.stdout"
  cat "$WORK/$run.report.stdout"
  expect "$run: nlspark report names the peak in mm and the page" \
    grep -Eq ' at \(-?[0-9]+, -?[0-9]+, -?[0-9]+\) mm; report: ' "$WORK/$run.report.stdout"
  shot=()
  [[ $run == one-sample ]] && shot=("$REPO_ROOT/docs/report-screenshot.png")
  node --experimental-websocket --no-warnings "$IT_DIR/report-browser-check.mjs" chromium \
    "$out/report.html" "${shot[@]}" > "$WORK/$run.page.json"
  planted=()
  [[ $run == one-sample ]] && planted=("$WORK/planted.json")
  set +e
  verdict=$(python3 "$IT_DIR/report_browser_verify.py" "$WORK/$run.page.json" "$out" "${planted[@]}")
  set -e
  while IFS= read -r line; do
    [[ $line == RESULT* ]] || echo "$run: $line"
  done <<<"$verdict"
  tally "$verdict"
done
expect "screenshot written to docs/report-screenshot.png" \
  test -s "$REPO_ROOT/docs/report-screenshot.png"

echo "report-browser: $passed passed, $failed failed"
[[ $failed == 0 ]]
