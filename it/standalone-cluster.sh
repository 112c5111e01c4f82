#!/usr/bin/env bash
# Runs the nlspark application jar on a real multi-process Spark standalone cluster on loopback
# (one master, two workers, executors in their own JVMs), submitted through SparkSubmit as
# spark-submit does, and checks that every output .npy is byte-identical to the same command run
# embedded (bin/nlspark). Then kills one executor JVM while tiles run and checks the job still
# finishes with byte-identical outputs (DESIGN §5: bits do not depend on executors or retries).
#
# Usage: it/standalone-cluster.sh            (after: mvn -B install -DskipTests)
# Env:   NLSPARK_JAR=...        application jar (default spark-jobs/target/*-app.jar)
#        IT_TIMEOUT_S=...       bound on each Spark run (default 300)
#        IT_FAULT_PERMUTATIONS  length of the fault-case job (default 200000)
# Everything it starts it stops (trap on EXIT); logs stay in it/work/standalone-cluster/logs.
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK=$IT_DIR/work/standalone-cluster
LOGS=$WORK/logs
RUN_TIMEOUT=${IT_TIMEOUT_S:-300}

cleanup() {
  local rc=$?
  set +e
  stop_started
  if ((rc != 0)); then
    print_log_tails "$LOGS"
    print_log_tails "$WORK/worker1"
    print_log_tails "$WORK/worker2"
    log "standalone-cluster: FAILED (exit $rc); logs in ${LOGS#"$REPO_ROOT"/}"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

T0=$SECONDS
rm -rf "$WORK"
mkdir -p "$LOGS" "$WORK/data"
ensure_spark_home
read -r -a OPENS <<< "$(spark_jvm_opens)"
((${#OPENS[@]} > 0)) || die "cannot read the property spark.jvm.opens from the root pom.xml"

# --- the application under test -----------------------------------------------------------
MAIN_CLASS=org.nlspark.spark.Main
APP_JAR=$(find_app_jar)
[[ -n $APP_JAR && -f $APP_JAR ]] \
  || die "no application jar in $LINE_MODULE/target; run 'mvn -B install -DskipTests' first"
[[ -x $REPO_ROOT/bin/nlspark ]] || die "bin/nlspark is missing; it runs the embedded reference"
log "application jar: ${APP_JAR#"$REPO_ROOT"/}"

# Embedded reference run: the same command through bin/nlspark (local[*], one JVM).
run_embedded() {
  local name=$1
  shift
  timeout -k 30 "$RUN_TIMEOUT" "$REPO_ROOT/bin/nlspark" "$@" > "$LOGS/$name.log" 2>&1 \
    || die "embedded run '$name' failed or timed out (${RUN_TIMEOUT}s)"
}

# Cluster run through SparkSubmit (client deploy mode: the driver is this JVM, so the
# --add-opens go on its command line; executors get them through extraJavaOptions). Tasks
# start once both executors have registered, so both workers take part in every run.
submit_to_cluster() {
  local name=$1
  shift
  local extra=()
  [[ $name == cluster-fault ]] && extra=(--conf spark.nlspark.test.hold-tile-ms=300000)
  timeout -k 30 "$RUN_TIMEOUT" java -Xmx1g "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
    -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
    org.apache.spark.deploy.SparkSubmit \
    --master "spark://127.0.0.1:$MASTER_PORT" --deploy-mode client \
    --name "nlspark-it-$name" --class "$MAIN_CLASS" \
    --executor-memory 768m --total-executor-cores 2 \
    --conf "spark.executor.extraJavaOptions=${OPENS[*]}" \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
    --conf spark.ui.enabled=false \
    --conf spark.task.maxFailures=8 \
    --conf spark.scheduler.minRegisteredResourcesRatio=1.0 \
    --conf spark.scheduler.maxRegisteredResourcesWaitingTime=90s \
    "${extra[@]}" "$APP_JAR" "$@" > "$LOGS/$name.log" 2>&1
}

# --- input and embedded reference ---------------------------------------------------------
INPUT=$WORK/data/x.npy
java "$IT_DIR/tools/MakeNpy.java" "$INPUT" 20 3000 7 || die "cannot write the input .npy"
ONE=(one-sample --input "$INPUT" --permutations 1000 --seed 11 --partitions 6)
BOOT=(bootstrap --input "$INPUT" --samples 1000 --seed 12 --partitions 6)
# The fault case: the first attempt of tile 0 waits (a test-only setting) until the script has
# killed its executor, so a running task is always lost, however busy the machine is.
LONG=(one-sample --input "$INPUT" --permutations "${IT_FAULT_PERMUTATIONS:-20000}" --seed 13
  --partitions 24)

log "embedded runs (reference outputs)"
t=$SECONDS
run_embedded embedded-one-sample "${ONE[@]}" --output "$WORK/embedded/one-sample"
run_embedded embedded-bootstrap "${BOOT[@]}" --output "$WORK/embedded/bootstrap"
run_embedded embedded-fault "${LONG[@]}" --output "$WORK/embedded/fault"
log "  embedded runs took $((SECONDS - t))s"

# --- the cluster --------------------------------------------------------------------------
MASTER_PORT=$(free_port)
MASTER_UI_PORT=$(free_port)
log "starting master on spark://127.0.0.1:$MASTER_PORT"
# Daemons log at Spark's default INFO level (no log4j2 file on their class path): the script
# reads their registration lines, and the tails help on failure.
setsid java -Xmx256m "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
  org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$MASTER_PORT" \
  --webui-port "$MASTER_UI_PORT" > "$LOGS/master.log" 2>&1 &
STARTED_PIDS+=("$!")
wait_for_log "$LOGS/master.log" "I have been elected leader" 90 "the master to start"

declare -A WORKER_PORT
for w in 1 2; do
  WORKER_PORT[$w]=$(free_port)
  mkdir -p "$WORK/worker$w"
  # SPARK_WORKER_OPTS reaches executors' launch only through the app's extraJavaOptions, so
  # each worker gets the opens itself on its own command line.
  setsid java -Xmx256m "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
    org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --port "${WORKER_PORT[$w]}" \
    --webui-port "$(free_port)" --cores 1 --memory 1g --work-dir "$WORK/worker$w" \
    "spark://127.0.0.1:$MASTER_PORT" > "$LOGS/worker$w.log" 2>&1 &
  STARTED_PIDS+=("$!")
done
for w in 1 2; do
  wait_for_log "$LOGS/worker$w.log" "Successfully registered with master" 90 "worker $w"
done
log "  master and 2 workers up after $((SECONDS - T0))s"

# Executors of the latest app ran tasks on both workers, so the job really was distributed.
check_both_workers_ran() {
  local w app
  for w in 1 2; do
    app=$(find "$WORK/worker$w" -mindepth 1 -maxdepth 1 -name 'app-*' | sort | tail -n 1)
    [[ -n $app ]] || die "worker $w never launched an executor: the job did not run on the cluster"
    grep -qsE "Running task" "$app"/*/stderr \
      || die "worker $w ran no task of $(basename "$app"): the job did not use the whole cluster"
  done
}

log "cluster: one-sample and bootstrap"
t=$SECONDS
submit_to_cluster cluster-one-sample "${ONE[@]}" --output "$WORK/cluster/one-sample" \
  || die "cluster one-sample failed or timed out (${RUN_TIMEOUT}s)"
check_both_workers_ran
submit_to_cluster cluster-bootstrap "${BOOT[@]}" --output "$WORK/cluster/bootstrap" \
  || die "cluster bootstrap failed or timed out (${RUN_TIMEOUT}s)"
check_both_workers_ran
log "  cluster runs took $((SECONDS - t))s"
compare_npy_dirs "$WORK/embedded/one-sample" "$WORK/cluster/one-sample" "cluster run"
compare_npy_dirs "$WORK/embedded/bootstrap" "$WORK/cluster/bootstrap" "cluster run"

# --- fault: kill an executor JVM of worker 1 while its tasks run --------------------------
log "fault case: killing the executor that holds tile 0"
t=$SECONDS
submit_to_cluster cluster-fault "${LONG[@]}" --output "$WORK/cluster/fault" &
DRIVER_PID=$!
deadline=$((SECONDS + 180))
victim=""
while [[ -z $victim ]]; do
  ((SECONDS < deadline)) || die "no executor reported holding tile 0 within 180s"
  kill -0 "$DRIVER_PID" 2>/dev/null || die "the fault-case job ended before an executor could be killed"
  sleep 0.5
  # The task holding tile 0 prints its executor's pid to that executor's stderr and waits.
  victim=$(cat "$WORK"/worker*/app-*/*/stderr 2>/dev/null \
    | sed -n 's/^NLSPARK_HOLDING_TILE_0 pid=\([0-9]*\).*/\1/p' | tail -n 1)
done
kill -KILL "$victim"
log "  killed executor JVM $victim while it ran tile 0, after $((SECONDS - t))s"
wait "$DRIVER_PID" || die "the job did not survive the loss of an executor (or timed out)"
# ExecutorLostFailure is logged only for a task that was running on the lost executor.
grep -q "ExecutorLostFailure" "$LOGS/cluster-fault.log" \
  || die "no running task was lost with the executor (the kill should have hit the held tile 0)"
log "  job finished after the executor loss in $((SECONDS - t))s"
compare_npy_dirs "$WORK/embedded/fault" "$WORK/cluster/fault" "cluster run"

log "standalone-cluster: OK in $((SECONDS - T0))s"
