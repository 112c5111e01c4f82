#!/usr/bin/env bash
# Runs every command block of the README's quickstart as a newcomer would, and checks the last line
# each prints. The "## Quickstart" section of README.md holds ```sh blocks, each followed by a
# ```text block with the last line that block prints on stdout ("..." in it matches any text, for
# the parts that depend on where the directory is). The blocks run in order, each with `bash -e`,
# in one fresh working directory that looks like the top of the repository: bin/ holds one small
# wrapper per launcher (running this checkout's bin/ scripts, so the built jars are used), the
# other top-level entries are links, and whatever a block writes (nlspark-out/, out/, design.csv)
# stays in that directory, which is removed at the end. Blocks with no language are not run: the
# section opens with one naming bin/test, which is the command that runs this check.
# Usage: it/readme-quickstart.sh [README]   prints "readme-quickstart: N passed, 0 failed"
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readme=${1:-$REPO_ROOT/README.md}
[[ -f $readme ]] || die "cannot read the README: no such file: $readme"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
blocks=$work/.blocks
mkdir -p "$blocks" "$work/run/bin"

# Cuts the quickstart section into blocks/N.sh and blocks/N.expected (N = 1, 2, ...).
awk -v dir="$blocks" '
  /^## / { inside = ($0 == "## Quickstart"); next }
  !inside { next }
  fence == "" && /^```sh[[:space:]]*$/ { fence = "sh"; n++; file = dir "/" n ".sh"; printf "" > file; next }
  fence == "" && /^```text[[:space:]]*$/ {
    fence = "text"; if (n == 0 || expected[n]) { bad = 1 }
    expected[n] = 1; file = dir "/" n ".expected"; printf "" > file; next }
  fence == "" && /^```/ { fence = "other"; next }
  fence != "" && /^```[[:space:]]*$/ { fence = ""; close(file); next }
  fence == "sh" || fence == "text" { print > file }
  END {
    if (fence != "") { print "an unclosed code block" > "/dev/stderr"; exit 1 }
    for (i = 1; i <= n; i++) if (!expected[i]) { bad = 1 }
    if (bad) { print "every ```sh block needs one ```text block after it" > "/dev/stderr"; exit 1 }
    print n
  }' "$readme" > "$work/count" || die "cannot read the quickstart of $readme: its blocks are not in pairs"
count=$(cat "$work/count")
((count > 0)) || die "cannot find a \`\`\`sh block under \"## Quickstart\" in $readme"

# The working directory: the repository's top level, with its own bin/ and nothing written yet.
for entry in "$REPO_ROOT"/* "$REPO_ROOT"/.[!.]*; do
  name=$(basename "$entry")
  case $name in
    bin | nlspark-out | out | .git | '.[!.]*') continue ;;
  esac
  ln -s "$entry" "$work/run/$name"
done
for launcher in "$REPO_ROOT"/bin/*; do
  [[ -x $launcher ]] || continue
  printf '#!/usr/bin/env bash\nexec %q "$@"\n' "$launcher" > "$work/run/bin/$(basename "$launcher")"
  chmod +x "$work/run/bin/$(basename "$launcher")"
done

# Whether LINE matches EXPECTED, where each "..." in EXPECTED stands for any text.
matches() {
  LINE=$1 EXPECTED=$2 awk 'BEGIN {
    line = ENVIRON["LINE"]; n = split(ENVIRON["EXPECTED"], part, /\.\.\./)
    if (n <= 1) exit !(line == ENVIRON["EXPECTED"])
    if (substr(line, 1, length(part[1])) != part[1]) exit 1
    pos = length(part[1]) + 1
    for (i = 2; i < n; i++) {
      at = index(substr(line, pos), part[i]); if (at == 0) exit 1
      pos += at - 1 + length(part[i])
    }
    tail = length(line) - length(part[n]) + 1
    exit !(tail >= pos && substr(line, tail) == part[n])
  }'
}

# The matcher itself, so that a wildcard can never make every line pass.
if ! { matches "87 voxels; report: /tmp/x/report.html" "87 voxels; report: .../report.html" \
  && ! matches "86 voxels; report: /tmp/x/report.html" "87 voxels; report: .../report.html" \
  && ! matches "87 voxels" "87 voxels; report: .../report.html" \
  && ! matches "a" "a...a" && matches "same" "same" && ! matches "same " "same"; }; then
  die "[BUG] the last-line matcher of it/readme-quickstart.sh is wrong"
fi

passed=0
failed=0
for n in $(seq 1 "$count"); do
  expected=$(grep -v '^[[:space:]]*$' "$blocks/$n.expected" | tail -n 1 || true)
  first=$(head -n 1 "$blocks/$n.sh")
  [[ -n $expected ]] || die "quickstart block $n ($first) has an empty expected line"
  log "quickstart block $n: $first"
  set +e
  (cd "$work/run" && timeout -k 30 600 bash -e "$blocks/$n.sh") > "$work/$n.out" 2> "$work/$n.err"
  rc=$?
  set -e
  last=$(grep -v '^[[:space:]]*$' "$work/$n.out" | tail -n 1 || true)
  if [[ $rc -ne 0 ]]; then
    log "FAILED: quickstart block $n ($first) exited $rc; its stderr ends:"
    tail -n 15 "$work/$n.err" >&2
    failed=$((failed + 1))
  elif ! matches "$last" "$expected"; then
    log "FAILED: quickstart block $n ($first) printed as its last line"
    log "  $last"
    log "but the README expects"
    log "  $expected"
    failed=$((failed + 1))
  else
    log "ok: $last"
    passed=$((passed + 1))
  fi
done
echo "readme-quickstart: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
