#!/usr/bin/env bash
# Scale check of the data plane (DESIGN §8): a study of 3-D .nii.gz subjects whose float32
# volumes (>= 2 GB by default) are several times the driver's heap, one-sample t with max-T and a
# fixed number of sign flips, run on a real standalone cluster on loopback (one master, two
# workers, executors in their own JVMs) with the driver at -Xmx512m: executors read the files
# into voxel blocks and nothing of size samples x voxels passes through the driver. Its outputs
# must be byte-identical to the same study run in one JVM with a large heap (all samples read
# into one float64 array, core's LocalEngine). summary.json records the driver's and executors'
# peak heap and the ingest benchmark (files -> voxel blocks vs plain java.util.zip inflate).
# Then glm with 3 covariates, 2 contrasts and --tfce on a smaller study (SCALE_GLM_GB) the same
# way: whole maps assembled on the executors from the voxel blocks' slices (DESIGN §9),
# byte-identical to core's in-memory whole-map run in one JVM; peak heaps in its summary.json.
#
# Usage: it/scale-check.sh            (after: mvn -B install -DskipTests)
# Env:   SCALE_GB=2.0               float32 volume bytes to generate, in GB
#        SCALE_PERMUTATIONS=20      sign flips
#        SCALE_GLM_GB=0.15          float32 volume bytes of the glm --tfce study, in GB
#        SCALE_GLM_PERMUTATIONS=8   glm permutations
#        NLSPARK_JAR=...            application jar (default spark-jobs/target/*-app.jar)
#        IT_TIMEOUT_S=900           bound on each run
#        SCALE_SPARK_CONF="k=v ..."  extra --conf for the cluster run (to measure a setting)
# Everything it starts it stops (trap on EXIT); logs stay in it/work/scale-check/logs.
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK=$IT_DIR/work/scale-check
LOGS=$WORK/logs
DATA=$WORK/data
GB=${SCALE_GB:-2.0}
PERMUTATIONS=${SCALE_PERMUTATIONS:-20}
GLM_GB=${SCALE_GLM_GB:-0.15}
GLM_PERMUTATIONS=${SCALE_GLM_PERMUTATIONS:-8}
SEED=7
RUN_TIMEOUT=${IT_TIMEOUT_S:-900}

cleanup() {
  local rc=$?
  set +e
  stop_started
  if ((rc != 0)); then
    print_log_tails "$LOGS"
    log "scale-check: FAILED (exit $rc); logs in ${LOGS#"$REPO_ROOT"/}"
  fi
  # The generated study is large; keep only the logs and the outputs.
  rm -rf "$DATA" "$WORK"/worker*/app-*
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

T0=$SECONDS
rm -rf "$WORK"
mkdir -p "$LOGS" "$DATA"
ensure_spark_home
read -r -a OPENS <<< "$(spark_jvm_opens)"
((${#OPENS[@]} > 0)) || die "cannot read the property spark.jvm.opens from the root pom.xml"
APP_JAR=$(find_app_jar)
[[ -n $APP_JAR && -f $APP_JAR ]] \
  || die "no application jar in $LINE_MODULE/target; run 'mvn -B install -DskipTests' first"
CHECK=org.nlspark.spark.bench.ScaleCheck
CP="$APP_JAR:$SPARK_HOME/jars/*"

log "generating $GB GB of float32 volumes as 3-D .nii.gz (gzip level 1)"
t=$SECONDS
timeout "$RUN_TIMEOUT" java -Xmx1g -cp "$CP" "$CHECK" generate "$DATA" "$GB" "$SEED" \
  > "$LOGS/generate.log" 2>&1 || die "cannot generate the study"
log "  $(tail -n 1 "$LOGS/generate.log") in $((SECONDS - t))s; $(du -sh "$DATA" | cut -f1) on disk"

log "reference: one JVM with a large heap, the samples read whole"
t=$SECONDS
timeout "$RUN_TIMEOUT" java -Xmx8g "${OPENS[@]}" -cp "$CP" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  "$CHECK" reference "$DATA" "$WORK/reference" "$PERMUTATIONS" "$SEED" \
  > "$LOGS/reference.log" 2>&1 || die "the reference run failed or timed out"
log "  $(grep '^reference:' "$LOGS/reference.log") ($((SECONDS - t))s)"

MASTER_PORT=$(free_port)
log "starting master on spark://127.0.0.1:$MASTER_PORT and two workers"
setsid java -Xmx256m "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
  org.apache.spark.deploy.master.Master --host 127.0.0.1 --port "$MASTER_PORT" \
  --webui-port "$(free_port)" > "$LOGS/master.log" 2>&1 &
STARTED_PIDS+=("$!")
wait_for_log "$LOGS/master.log" "I have been elected leader" 90 "the master to start"
for w in 1 2; do
  mkdir -p "$WORK/worker$w"
  setsid java -Xmx256m "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
    org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --port "$(free_port)" \
    --webui-port "$(free_port)" --cores 1 --memory 3g --work-dir "$WORK/worker$w" \
    "spark://127.0.0.1:$MASTER_PORT" > "$LOGS/worker$w.log" 2>&1 &
  STARTED_PIDS+=("$!")
done
for w in 1 2; do
  wait_for_log "$LOGS/worker$w.log" "Successfully registered with master" 90 "worker $w"
done

EXTRA_CONF=()
for kv in ${SCALE_SPARK_CONF:-}; do
  EXTRA_CONF+=(--conf "$kv")
done
# submit MODE ARGS...: ScaleCheck MODE on the cluster, the driver at -Xmx512m
submit() {
  timeout "$RUN_TIMEOUT" java -Xmx512m "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  org.apache.spark.deploy.SparkSubmit \
  --master "spark://127.0.0.1:$MASTER_PORT" --deploy-mode client \
  --name nlspark-scale-check --class "$CHECK" \
  --driver-memory 512m --executor-memory 2g --total-executor-cores 2 \
  --conf "spark.executor.extraJavaOptions=${OPENS[*]}" \
  --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
  --conf spark.ui.enabled=false \
  --conf spark.scheduler.minRegisteredResourcesRatio=1.0 \
  --conf spark.scheduler.maxRegisteredResourcesWaitingTime=90s \
  ${EXTRA_CONF[@]+"${EXTRA_CONF[@]}"} \
  "$APP_JAR" "$@"
}
log "cluster: driver -Xmx512m, executors read the files into voxel blocks${SCALE_SPARK_CONF:+ ($SCALE_SPARK_CONF)}"
t=$SECONDS
submit cluster "$DATA" "$WORK/cluster" "$PERMUTATIONS" "$SEED" \
  > "$LOGS/cluster.log" 2>&1 || die "the cluster run failed or timed out (${RUN_TIMEOUT}s)"
log "  $(grep '^cluster:' "$LOGS/cluster.log") ($((SECONDS - t))s)"
log "  $(grep '^ingest benchmark:' "$LOGS/cluster.log")"

n=0
for f in "$WORK/reference"/*.npy; do
  [[ -f $f ]] || die "the reference run wrote no .npy"
  cmp "$f" "$WORK/cluster/$(basename "$f")" \
    || die "$(basename "$f") differs between the one-JVM reference and the cluster run"
  n=$((n + 1))
done
grep -q '"executor_peak_heap_bytes"' "$WORK/cluster/summary.json" \
  || die "summary.json lacks the executors' peak heap"
grep -q '"mode": *"blocks"' "$WORK/cluster/summary.json" \
  || die "summary.json does not record the blocks ingest"
log "  $n .npy files byte-identical: $(cd "$WORK/reference" && echo ./*.npy)"
rm -rf "$DATA"/sub-*.nii.gz

GLM=$DATA/glm
log "glm --tfce study: $GLM_GB GB of float32 volumes, intercept + 3 covariates, 2 contrasts"
t=$SECONDS
timeout "$RUN_TIMEOUT" java -Xmx1g -cp "$CP" "$CHECK" generate "$GLM" "$GLM_GB" "$SEED" \
  > "$LOGS/glm-generate.log" 2>&1 || die "cannot generate the glm study"
java -cp "$CP" "$CHECK" glm-design "$GLM" "$SEED" >> "$LOGS/glm-generate.log" 2>&1 \
  || die "cannot write the glm design"
log "  $(grep '^generated' "$LOGS/glm-generate.log") in $((SECONDS - t))s"
t=$SECONDS
timeout "$RUN_TIMEOUT" java -Xmx6g "${OPENS[@]}" -cp "$CP" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  "$CHECK" glm-reference "$GLM" "$WORK/glm-reference" "$GLM_PERMUTATIONS" "$SEED" \
  > "$LOGS/glm-reference.log" 2>&1 || die "the glm reference run failed or timed out"
log "  $(grep '^glm reference:' "$LOGS/glm-reference.log") ($((SECONDS - t))s)"
t=$SECONDS
submit glm-cluster "$GLM" "$WORK/glm-cluster" "$GLM_PERMUTATIONS" "$SEED" \
  > "$LOGS/glm-cluster.log" 2>&1 || die "the glm cluster run failed or timed out (${RUN_TIMEOUT}s)"
log "  $(grep '^glm cluster:' "$LOGS/glm-cluster.log") ($((SECONDS - t))s)"
n=0
for f in "$WORK/glm-reference"/*.npy; do
  [[ -f $f ]] || die "the glm reference run wrote no .npy"
  cmp "$f" "$WORK/glm-cluster/$(basename "$f")" \
    || die "$(basename "$f") differs between the one-JVM glm reference and the cluster run"
  n=$((n + 1))
done
((n >= 16)) || die "the glm reference wrote $n .npy files, not the 8 per contrast of --tfce"
for key in driver_peak_heap_bytes executor_peak_heap_bytes map_slice_partitions; do
  grep -q "\"$key\"" "$WORK/glm-cluster/summary.json" || die "glm summary.json lacks $key"
done
log "  $n glm .npy files byte-identical: $(cd "$WORK/glm-reference" && echo ./*.npy)"
log "scale-check: OK in $((SECONDS - T0))s"
