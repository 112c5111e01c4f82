#!/usr/bin/env bash
# Checks what CI cannot run (cloud clusters, GPUs): every JSON under conf/ parses; every shell
# script under conf/ and it/ passes bash -n and ShellCheck; every Spark, RAPIDS or platform
# configuration key used in conf/ or notebooks/ is listed in conf/known-keys.tsv (with where it
# is documented); the .conf files are key-value lines; the RMM pool fractions are ordered.
# Installs jq and shellcheck with apt-get when they are missing (CI images are Debian).
# Usage: it/validate-conf.sh
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$REPO_ROOT"
T0=$SECONDS
problems=0
problem() { log "PROBLEM: $*"; problems=$((problems + 1)); }

need_tool() {
  local tool=$1 package=$2
  command -v "$tool" > /dev/null 2>&1 && return 0
  log "installing $package (apt-get)"
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  "${sudo[@]}" apt-get install -y -q "$package" > /dev/null 2>&1 \
    || { "${sudo[@]}" apt-get update -q > /dev/null 2>&1 \
      && "${sudo[@]}" apt-get install -y -q "$package" > /dev/null 2>&1; } \
    || die "cannot install $package with apt-get; install it and rerun"
}
need_tool jq jq
need_tool shellcheck shellcheck

# 1. JSON parses.
n=0
while IFS= read -r -d '' f; do
  jq empty "$f" 2> /dev/null || problem "$f is not valid JSON: $(jq empty "$f" 2>&1 | head -n 1)"
  n=$((n + 1))
done < <(find conf notebooks -name '*.json' -print0)
log "JSON files parsed: $n"

# 2. Shell scripts: syntax and ShellCheck.
n=0
while IFS= read -r -d '' f; do
  bash -n "$f" || problem "$f fails bash -n"
  shellcheck -x "$f" || problem "$f fails ShellCheck (see above)"
  n=$((n + 1))
done < <(find conf it -name '*.sh' -not -path 'it/.cache/*' -not -path 'it/work/*' -print0)
log "shell scripts checked (bash -n, shellcheck): $n"

# 3. Keys. In config files a key starts a line or follows a quote, space, '=', ':' or ','
#    (covers spark-defaults, JSON, --conf and Dataproc's spark:key=value); in notebooks only
#    quoted strings count, so Scala like spark.sparkContext is not taken for a key.
KNOWN=conf/known-keys.tsv
[[ -f $KNOWN ]] || die "$KNOWN is missing"
bad_rows=$(grep -v '^#' "$KNOWN" | awk -F'\t' 'NF != 3 || $1 == "" || $2 !~ /^(spark|rapids|databricks|dataproc|nlspark)$/ || $3 == ""' || true)
[[ -z $bad_rows ]] || problem "$KNOWN rows need 3 tab-separated columns (key, project spark|rapids|databricks|dataproc|nlspark, documentation): $bad_rows"
known=$(grep -v '^#' "$KNOWN" | cut -f1 | sort -u)
used=$(
  {
    find conf -type f -not -name known-keys.tsv -print0 \
      | xargs -0 grep -hoE "(^|[\"' =:,])spark\.[a-zA-Z][A-Za-z0-9_.-]*[A-Za-z0-9]" \
      | sed -E 's/^[^s]*//'
    find notebooks -type f -print0 \
      | xargs -0 grep -hoE '"spark\.[a-zA-Z][A-Za-z0-9_.-]*[A-Za-z0-9]"' | tr -d '"'
  } | sort -u
)
unknown=$(comm -23 <(echo "$used") <(echo "$known"))
unused=$(comm -13 <(echo "$used") <(echo "$known"))
[[ -z $unknown ]] || problem "keys used but not in $KNOWN (confirm each in its project's documentation, then add it): $(echo "$unknown" | paste -sd' ')"
[[ -z $unused ]] || problem "keys in $KNOWN that nothing uses (remove them): $(echo "$unused" | paste -sd' ')"
log "configuration keys used: $(echo "$used" | grep -c .), all listed in $KNOWN: $([[ -z $unknown ]] && echo yes || echo no)"

# 4. spark-defaults format: comment, blank, or "key<space>value".
while IFS= read -r -d '' f; do
  bad=$(grep -nvE '^[[:space:]]*(#.*)?$|^spark\.[A-Za-z0-9_.-]+[[:space:]]+[^[:space:]]' "$f" || true)
  [[ -z $bad ]] || problem "$f has lines that are not 'key value': $bad"
done < <(find conf -name '*.conf' -print0)

# 5. RMM pool: minAllocFraction <= allocFraction <= maxAllocFraction, and the pool leaves
#    device memory for nlspark (maxAllocFraction < 1), wherever the three are set together.
check_fractions() {
  local where=$1 min=$2 alloc=$3 max=$4
  awk -v a="$min" -v b="$alloc" -v c="$max" 'BEGIN { exit !(a <= b && b <= c && c < 1) }' \
    || problem "$where: RMM fractions must satisfy min <= alloc <= max < 1, but were: min=$min alloc=$alloc max=$max"
}
conf_value() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
check_fractions conf/rapids-gpu.conf \
  "$(conf_value conf/rapids-gpu.conf spark.rapids.memory.gpu.minAllocFraction)" \
  "$(conf_value conf/rapids-gpu.conf spark.rapids.memory.gpu.allocFraction)" \
  "$(conf_value conf/rapids-gpu.conf spark.rapids.memory.gpu.maxAllocFraction)"
for f in conf/databricks/cluster.json conf/databricks/job.json; do
  while IFS=$'\t' read -r min alloc max; do
    check_fractions "$f" "$min" "$alloc" "$max"
  done < <(jq -r '.. | objects | select(has("spark.rapids.memory.gpu.allocFraction"))
    | [."spark.rapids.memory.gpu.minAllocFraction", ."spark.rapids.memory.gpu.allocFraction",
       ."spark.rapids.memory.gpu.maxAllocFraction"] | @tsv' "$f")
done

# 6. Notebooks are in Databricks' Scala source format.
for f in notebooks/*.scala; do
  [[ $(head -n 1 "$f") == "// Databricks notebook source" ]] \
    || problem "$f must start with '// Databricks notebook source'"
done

((problems == 0)) || die "validate-conf: $problems problem(s)"
log "validate-conf: OK in $((SECONDS - T0))s"
