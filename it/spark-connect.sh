#!/usr/bin/env bash
# nlspark from a Spark Connect client: a real Spark Connect server (pyspark 4.2.0's bundled
# Spark 4.2, its spark-connect jar, bound to 127.0.0.1) with nlspark's server jar and plugin
# (connect/: spark.connect.extensions.relation.classes=org.nlspark.connect.CallPlugin), and the
# pure Connect client from the package registry (pyspark-client 4.2.0: no JVM, no py4j) with the
# nlspark package installed beside it. python/tests/connect_parity.py makes the same calls through
# Connect and in a classic pyspark 4.2.0 session (one_sample, glm with TFCE, Result.write, the
# nilearn drop-in, three refusals); every output file but summary.json and report.html (times,
# budgets) must be byte-identical, and the exceptions of the same type with the same sentence.
#
# Usage: it/spark-connect.sh   (after mvn -B install -DskipTests; reuses it/python-tests.sh's
# pyspark 4.2.0 venv when it is there)
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
unset SPARK_HOME SPARK_SCALA_VERSION  # pyspark's bundled Spark is the server's

PYTHON_BIN=${NLSPARK_PYTHON_BIN:-python3}
COMMON=(nibabel==5.4.2 pandas==2.3.3 numpy==2.4.6 nilearn==0.14.1 scikit-learn==1.9.1)
CLASSIC=$REPO_ROOT/target/python-venv-4.2
CLIENT=$REPO_ROOT/target/python-venv-connect
WORK=$REPO_ROOT/target/it-spark-connect
T0=$SECONDS

jars=("$REPO_ROOT"/connect/target/nlspark-connect-4.2_2.13-*-app.jar)
server_jar=${jars[0]}
[[ -f $server_jar ]] || die "the Spark Connect server jar is not built; run mvn -B install -DskipTests"
"$REPO_ROOT/python/copy-jars.sh" > /dev/null || die "cannot put the jars and the message in the package"

install() {  # VENV PACKAGES...: the packages, then ./python without its dependencies
  local venv=$1
  shift
  [[ -x $venv/bin/python ]] || "$PYTHON_BIN" -m venv "$venv" || die "cannot create $venv"
  log "installing $* into ${venv#"$REPO_ROOT"/}"
  "$venv/bin/pip" install -q --disable-pip-version-check "$@" || die "cannot install $*"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall \
    "$REPO_ROOT/python" || die "cannot install ./python into $venv"
}
rm -rf "$CLIENT" "$WORK" "$REPO_ROOT/python/build"
mkdir -p "$WORK"
install "$CLASSIC" pyspark==4.2.0 pytest==9.2.0 "${COMMON[@]}"
install "$CLIENT" pyspark-client==4.2.0 "${COMMON[@]}"
rm -rf "$REPO_ROOT/python/build" "$REPO_ROOT"/python/*.egg-info
"$CLIENT/bin/python" -c "import py4j" 2> /dev/null && die "the Connect client venv has py4j: it is not a pure client"
spark_home=$("$CLASSIC/bin/python" -c "import os, pyspark; print(os.path.dirname(pyspark.__file__))")
ls "$spark_home"/jars/spark-connect_2.13-4.2.0.jar > /dev/null || die "pyspark 4.2.0 bundles no spark-connect jar"

free_port() {
  "$PYTHON_BIN" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}
servers=()
stop_servers() {
  local pid
  for pid in "${servers[@]}"; do
    kill "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
  done
}
trap stop_servers EXIT
start_server() {  # NAME PORT [spark-submit options]: a Connect server on 127.0.0.1:PORT
  local name=$1 port=$2
  shift 2
  SPARK_HOME=$spark_home "$spark_home/bin/spark-submit" \
    --class org.apache.spark.sql.connect.service.SparkConnectServer --master 'local[2]' \
    --conf spark.connect.grpc.binding.address=127.0.0.1 --conf spark.connect.grpc.binding.port="$port" \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
    --conf spark.ui.enabled=false "$@" > "$WORK/$name.log" 2>&1 &
  servers+=($!)
}
await_server() {  # NAME
  for _ in $(seq 180); do
    grep -q "Spark Connect server started" "$WORK/$1.log" && return 0
    sleep 1
  done
  tail -n 30 "$WORK/$1.log" >&2
  die "the Spark Connect server $1 did not start in 180 s"
}
port=$(free_port)
bare_port=$(free_port)
log "starting Spark Connect servers on 127.0.0.1: $port with $(basename "$server_jar"), $bare_port without nlspark"
start_server server "$port" --conf spark.driver.memory=2g \
  --conf spark.connect.extensions.relation.classes=org.nlspark.connect.CallPlugin \
  --driver-class-path "$server_jar" --driver-java-options "--add-modules jdk.incubator.vector" \
  "$server_jar"
start_server bare "$bare_port" spark-internal
await_server server
await_server bare
log "servers up after $((SECONDS - T0)) s"

cd "$REPO_ROOT/python/tests"
# A pure client with no session: one sentence, not a JVM start.
cat > "$WORK/no_session.py" <<'PY'
import numpy
import nlspark
try:
    nlspark.one_sample(numpy.ones((3, 2)))
except ValueError as e:
    print(e)
PY
message=$("$CLIENT/bin/python" "$WORK/no_session.py" 2>&1) || true
[[ $message == "Cannot run nlspark: no Spark session is active and this pyspark is a Spark Connect client;"* ]] \
  || die "a pure client without a session said: $message"

# A server without the plugin: one sentence that says what to configure.
cat > "$WORK/no_plugin.py" <<'PY'
import sys
import numpy
import nlspark
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
try:
    nlspark.one_sample(numpy.ones((3, 2)) + numpy.arange(2), spark=spark)
except ValueError as e:
    print(e)
PY
message=$("$CLIENT/bin/python" "$WORK/no_plugin.py" "sc://127.0.0.1:$bare_port" 2>&1) || true
[[ $message == "Cannot run nlspark in this Spark Connect session: its server has no nlspark plugin;"* ]] \
  || die "a server without the plugin gave: $message"
kill "${servers[1]}"

# the classic session's calls meanwhile, in a process of their own
"$CLASSIC/bin/python" connect_parity.py classic "$WORK/classic" > "$WORK/classic.log" 2>&1 &
classic=$!
"$CLIENT/bin/python" connect_parity.py "sc://127.0.0.1:$port" "$WORK/connect" \
  || die "the calls through Spark Connect failed (server log: ${WORK#"$REPO_ROOT"/}/server.log)"
wait "$classic" || { tail -n 30 "$WORK/classic.log" >&2; die "the calls in a classic session failed"; }

compared=0
while IFS= read -r -d '' file; do
  rel=${file#"$WORK/connect/"}
  cmp -s "$file" "$WORK/classic/$rel" || die "$rel differs between Spark Connect and a classic session"
  compared=$((compared + 1))
done < <(find "$WORK/connect" -type f ! -name summary.json ! -name report.html ! -name timings.json -print0)
((compared > 30)) || die "only $compared files were compared"
for side in connect classic; do
  log "$side: $(tr -d '\n ' < "$WORK/$side/timings.json")"
done
log "Spark Connect: $compared files byte-identical to a classic session's, the same exceptions ($((SECONDS - T0)) s)"
