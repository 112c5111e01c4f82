# shellcheck shell=bash
# Shared by the integration scripts: a Spark home laid out from Maven Central, the JVM options
# Spark needs on Java 17, and where the application jar is. Source it; it defines functions only.

IT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$IT_DIR/.." && pwd)
IT_CACHE=${NLSPARK_IT_CACHE:-$IT_DIR/.cache}
# The Spark line the checks run on (the same switch as bin/nlspark): 4.2 (Spark 4.2.0, Scala
# 2.13; the default) or 3.5 (Spark 3.5.3, Scala 2.12). Each line gets its own Spark home.
# Listed once in conf/spark-lines.tsv (first row: the default line).
SPARK_LINES_FILE=$REPO_ROOT/conf/spark-lines.tsv
NLSPARK_LINE=${NLSPARK_LINE:-$(awk -F'\t' '!/^#/ {print $1; exit}' "$SPARK_LINES_FILE")}
read -r LINE_SPARK_VERSION LINE_SCALA LINE_MODULE LINE_ARTIFACT < <(awk -F'\t' -v l="$NLSPARK_LINE" \
  '!/^#/ && $1 == l {print $2, $3, $4, $5}' "$SPARK_LINES_FILE") || true
if [[ -z ${LINE_MODULE:-} ]]; then
  printf 'NLSPARK_LINE is not a line of conf/spark-lines.tsv: %s\n' "$NLSPARK_LINE" >&2
  exit 2
fi
export NLSPARK_LINE
# NLSPARK_IT_SPARK_VERSION=4.0.1 submits to another release of the same line instead (the line's
# jar on the Spark 4.0 or 4.1 that platforms run); the embedded reference stays the line's build.
LINE_SPARK_VERSION=${NLSPARK_IT_SPARK_VERSION:-$LINE_SPARK_VERSION}
SPARK_HOME=$IT_CACHE/spark-home-$LINE_SPARK_VERSION
export SPARK_HOME
# The launcher library (used by the worker to build executor commands) asks for these.
export SPARK_SCALA_VERSION=$LINE_SCALA
export SPARK_LOCAL_IP=127.0.0.1

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "FAILED: $*"; exit 1; }

# The --add-opens list of the root pom (property spark.jvm.opens): one source of truth.
spark_jvm_opens() {
  sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' "$REPO_ROOT/pom.xml"
}

# Lays out $SPARK_HOME/jars once per line and content of it/spark-home/pom.xml (cached, ignored
# by git).
ensure_spark_home() {
  local stamp
  stamp=$( (cat "$IT_DIR/spark-home/pom.xml"; echo "$LINE_SPARK_VERSION $LINE_SCALA") | sha256sum | cut -c1-16)
  if [[ -f $SPARK_HOME/.stamp && $(cat "$SPARK_HOME/.stamp") == "$stamp" ]]; then
    return 0
  fi
  log "laying out a Spark home from Maven Central in $SPARK_HOME (once)"
  rm -rf "$SPARK_HOME"
  mkdir -p "$SPARK_HOME/jars"
  timeout -k 30 900 mvn -q -B -Dstyle.color=never -f "$IT_DIR/spark-home/pom.xml" dependency:copy-dependencies \
    -Dspark.version="$LINE_SPARK_VERSION" -Dscala.binary.version="$LINE_SCALA" \
    -DoutputDirectory="$SPARK_HOME/jars" || die "cannot copy the Spark jars from Maven"
  # With a RELEASE file the launcher takes jars/ as the class path, as in a distribution.
  echo "Spark $LINE_SPARK_VERSION (Scala $LINE_SCALA) jars from Maven Central, laid out by it/lib.sh" \
    > "$SPARK_HOME/RELEASE"
  echo "$stamp" > "$SPARK_HOME/.stamp"
}

# Prints the shaded application jar of the line's module, or nothing when it is not built.
find_app_jar() {
  if [[ -n ${NLSPARK_JAR:-} ]]; then
    echo "$NLSPARK_JAR"
    return 0
  fi
  local jar
  for jar in "$REPO_ROOT/$LINE_MODULE/target/$LINE_ARTIFACT"-*-app.jar; do
    [[ -f $jar ]] && { echo "$jar"; return 0; }
  done
  return 0
}

# Prints a TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  local port
  for _ in $(seq 1 200); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  die "cannot find a free port on 127.0.0.1 after 200 tries"
}

# Waits until FILE contains PATTERN (grep -E), at most SECONDS.
wait_for_log() {
  local file=$1 pattern=$2 seconds=$3 what=$4
  local deadline=$((SECONDS + seconds))
  until grep -qE "$pattern" "$file" 2>/dev/null; do
    ((SECONDS < deadline)) || die "timed out after ${seconds}s waiting for $what (in $file)"
    sleep 1
  done
}

# Prints the last lines of every log under a folder (called on failure).
print_log_tails() {
  local dir=$1 f
  [[ -d $dir ]] || return 0
  while IFS= read -r f; do
    printf '\n===== tail of %s =====\n' "${f#"$REPO_ROOT"/}" >&2
    tail -n 40 "$f" >&2
  done < <(find "$dir" -type f \( -name '*.log' -o -name stderr -o -name stdout \) | sort)
}

# java_limited SECONDS LOG JAVA ARGS...: one JVM, its output in LOG, stopped after SECONDS. A JVM
# that hangs first gets QUIT (it prints every thread's stack into LOG), then KILL 20 s later (TERM
# could wait forever on a shutdown hook); the main thread, threads in nlspark's code and any
# deadlock the JVM found are printed here (12 frames each).
java_limited() {
  local limit=$1 log=$2 code=0
  shift 2
  timeout -s QUIT -k 20 "$limit" "$@" > "$log" 2>&1 || code=$?
  if ((code == 124 || code == 137)); then
    log "$(basename "$log" .log) ran past $limit s; its threads:"
    awk -v RS= '/^"main"|org\.nlspark|deadlock/ { n = split($0, l, "\n"); for (i = 1; i <= n && i <= 14; i++) print l[i]; print "" }' \
      "$log" >&2
  fi
  return "$code"
}

# Daemons a script started (masters, workers), each with setsid, so that its process group holds
# its executors too; stop_started ends them all.
STARTED_PIDS=()

# TERM to every started process group, up to 10 s for them to go, then KILL.
stop_started() {
  local pid
  for pid in "${STARTED_PIDS[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null
  done
  for _ in $(seq 1 20); do
    local alive=0
    for pid in "${STARTED_PIDS[@]}"; do
      kill -0 "$pid" 2>/dev/null && alive=1
    done
    ((alive)) || break
    sleep 0.5
  done
  for pid in "${STARTED_PIDS[@]}"; do
    kill -KILL -- "-$pid" 2>/dev/null
  done
  return 0
}

# Sets PYTHON to an interpreter that imports nibabel, installing Debian's python3-nibabel when it
# is missing (it lives in the system interpreter, which a pyenv shim may hide); never skips.
use_nibabel() {
  PYTHON=${NLSPARK_PYTHON:-/usr/bin/python3}
  [[ -x $PYTHON ]] || PYTHON=python3
  if ! "$PYTHON" -c 'import nibabel' > /dev/null 2>&1; then
    log "installing python3-nibabel (apt-get)"
    local sudo=()
    ((EUID == 0)) || sudo=(sudo)
    "${sudo[@]}" apt-get install -y -q python3-nibabel > /dev/null 2>&1 \
      || { "${sudo[@]}" apt-get update -q > /dev/null 2>&1 \
        && "${sudo[@]}" apt-get install -y -q python3-nibabel > /dev/null 2>&1; } \
      || die "cannot install python3-nibabel with apt-get; install it and rerun"
    "$PYTHON" -c 'import nibabel' || die "nibabel is installed but $PYTHON cannot import it"
  fi
  log "nibabel $("$PYTHON" -c 'import nibabel; print(nibabel.__version__)')"
}

# compare_npy_dirs EXPECTED ACTUAL WHAT: every .npy of EXPECTED exists in ACTUAL with the same
# bytes, and ACTUAL has no other .npy.
compare_npy_dirs() {
  local expected=$1 actual=$2 what=$3 f n=0
  for f in "$expected"/*.npy; do
    [[ -f $f ]] || die "$what: the reference run wrote no .npy in $expected"
    [[ -f $actual/$(basename "$f") ]] || die "$what lacks $(basename "$f")"
    cmp "$f" "$actual/$(basename "$f")" || die "$what: $(basename "$f") differs from the reference"
    n=$((n + 1))
  done
  local extra
  extra=$(comm -13 <(cd "$expected" && ls -- *.npy) <(cd "$actual" && ls -- *.npy))
  [[ -z $extra ]] || die "$what wrote .npy files the reference run did not: $extra"
  log "  $what: $n .npy files byte-identical"
}
