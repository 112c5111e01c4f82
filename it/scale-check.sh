#!/usr/bin/env bash
# Scale check of the data plane (DESIGN §8): a study of 3-D .nii.gz subjects whose float32
# volumes (>= 2 GB by default) are several times the driver's heap, one-sample t with max-T and a
# fixed number of sign flips, run on a real standalone cluster on loopback (one master, two
# workers, executors in their own JVMs) with the driver at -Xmx512m: executors read the files
# into voxel blocks and nothing of size samples x voxels passes through the driver. Its outputs
# must be byte-identical to the same study run in one JVM with a large heap (all samples read
# into one float64 array, core's LocalEngine). summary.json records the driver's and executors'
# peak heap and the ingest benchmark (files -> voxel blocks vs plain java.util.zip inflate).
# Then glm with 3 covariates, 2 contrasts and --tfce on the same study's files the same way:
# whole maps assembled on the executors from the voxel blocks' slices (DESIGN §9),
# byte-identical to core's in-memory whole-map run in one JVM (the same read of the study as the
# one-sample reference). Then, on the first SCALE_SMALL_SUBJECTS of the same files, one-sample
# --cluster-threshold from the voxel blocks and one-sample max-T on a DataFrame (a Parquet table
# of the masked samples, its partitions the read splits), each byte-identical to its one-JVM
# reference. Driver and executor peak heap are in each cluster run's summary.json and in the
# table printed at the end (GB: the masked float32 values the voxel blocks hold; run_s: the
# application's wall time from its start). Last, ridge-bootstrap (no voxel blocks: every replicate's
# SVD takes all of X) on an X of 2 features and a float32 Y whose float64 values exceed the driver's
# heap: each task reads X and Y whole on its executor, the driver their headers only, and the
# outputs are byte-identical to the driver-read run in one JVM.
#
# Usage: it/scale-check.sh            (after: mvn -B install -DskipTests)
# Env:   SCALE_GB=2.0               float32 volume bytes to generate, in GB
#        SCALE_PERMUTATIONS=20      sign flips
#        SCALE_GLM_PERMUTATIONS=20  glm permutations (on the same study)
#        SCALE_SMALL_SUBJECTS=100   subjects of the --cluster-threshold and DataFrame runs
#        SCALE_SMALL_PERMUTATIONS=20  their sign flips
#        SCALE_RIDGE_N=560 SCALE_RIDGE_TARGETS=125000 SCALE_RIDGE_SAMPLES=10  the ridge run
#        NLSPARK_JAR=...            application jar (default spark-jobs/target/*-app.jar)
#        IT_TIMEOUT_S=900           bound on each run
#        SCALE_SPARK_CONF="k=v ..."  extra --conf for the cluster runs (to measure a setting)
# Everything it starts it stops (trap on EXIT); logs stay in it/work/scale-check/logs.
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK=$IT_DIR/work/scale-check
LOGS=$WORK/logs
DATA=$WORK/data
GB=${SCALE_GB:-2.0}
PERMUTATIONS=${SCALE_PERMUTATIONS:-20}
GLM_PERMUTATIONS=${SCALE_GLM_PERMUTATIONS:-20}
SMALL_SUBJECTS=${SCALE_SMALL_SUBJECTS:-100}
SMALL_PERMUTATIONS=${SCALE_SMALL_PERMUTATIONS:-20}
RIDGE_N=${SCALE_RIDGE_N:-560}
RIDGE_TARGETS=${SCALE_RIDGE_TARGETS:-125000}
RIDGE_SAMPLES=${SCALE_RIDGE_SAMPLES:-10}
# The ridge rule (DESIGN §3.7) charges a replicate three times X and Y in float64 against half the
# budget; the executors of the ridge run get the workers' 3 GB for the task's copies of Y.
RIDGE_BUDGET_GB=3.4
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
# The checks themselves are test sources, not product: their own jar, built beside the application's.
BENCH_JAR=${APP_JAR%-app.jar}-bench.jar
[[ -f $BENCH_JAR ]] \
  || die "no bench jar beside the application jar ($(basename "$BENCH_JAR")); run 'mvn -B install -DskipTests' first"
CHECK=org.nlspark.spark.bench.ScaleCheck
CP="$APP_JAR:$BENCH_JAR:$SPARK_HOME/jars/*"

log "generating $GB GB of float32 volumes as 3-D .nii.gz (gzip level 1)"
t=$SECONDS
timeout -k 30 "$RUN_TIMEOUT" java -Xmx1g -cp "$CP" "$CHECK" generate "$DATA" "$GB" "$SEED" \
  > "$LOGS/generate.log" 2>&1 || die "cannot generate the study"
log "  $(tail -n 1 "$LOGS/generate.log") in $((SECONDS - t))s; $(du -sh "$DATA" | cut -f1) on disk"

java -cp "$CP" "$CHECK" glm-design "$DATA" "$SEED" >> "$LOGS/generate.log" 2>&1 \
  || die "cannot write the glm design"
SMALL=$DATA/subjects-small.txt
head -n "$SMALL_SUBJECTS" "$DATA/subjects.txt" > "$SMALL"

log "reference: one JVM with a large heap, the samples read whole (one-sample, then glm --tfce)"
t=$SECONDS
timeout -k 30 "$RUN_TIMEOUT" java -Xmx10g "${OPENS[@]}" -cp "$CP" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  "$CHECK" reference "$DATA" "$WORK/reference" "$PERMUTATIONS" "$SEED" \
  "$WORK/glm-reference" "$GLM_PERMUTATIONS" \
  > "$LOGS/reference.log" 2>&1 || die "the reference run failed or timed out"
log "  $(grep '^reference:' "$LOGS/reference.log")"
log "  $(grep '^glm reference:' "$LOGS/reference.log") ($((SECONDS - t))s for both)"

log "small references: the first $SMALL_SUBJECTS subjects, one-sample max-T and --cluster-threshold"
t=$SECONDS
timeout -k 30 "$RUN_TIMEOUT" java -Xmx4g "${OPENS[@]}" -cp "$CP" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  "$CHECK" small-reference "$DATA" "$SMALL" "$WORK/small-reference" "$SMALL_PERMUTATIONS" \
  "$SEED" > "$LOGS/small-reference.log" 2>&1 || die "the small reference runs failed or timed out"
while read -r line; do log "  $line"; done < <(grep '^small reference:' "$LOGS/small-reference.log")
log "  ($((SECONDS - t))s)"
t=$SECONDS
timeout -k 30 "$RUN_TIMEOUT" java -Xmx1g "${OPENS[@]}" -cp "$CP" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  "$CHECK" table "$DATA" "$SMALL" "$DATA/table.parquet" > "$LOGS/table.log" 2>&1 \
  || die "cannot write the Parquet table"
log "  Parquet $(grep '^table:' "$LOGS/table.log") ($((SECONDS - t))s)"

RIDGE=org.nlspark.spark.bench.RidgeScaleCheck
log "ridge data and reference: X $RIDGE_N x 2, Y $RIDGE_N x $RIDGE_TARGETS, $RIDGE_SAMPLES samples"
t=$SECONDS
java -Xmx1g -cp "$CP" "$RIDGE" data "$DATA/ridge" "$RIDGE_N" 2 "$RIDGE_TARGETS" "$SEED" \
  > "$LOGS/ridge-data.log" 2>&1 || die "cannot write the ridge data"
timeout -k 30 "$RUN_TIMEOUT" java -Xmx6g "${OPENS[@]}" -cp "$CP" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  "$RIDGE" reference "$DATA/ridge" "$WORK/ridge-reference" "$RIDGE_SAMPLES" "$SEED" \
  "$RIDGE_BUDGET_GB" > "$LOGS/ridge-reference.log" 2>&1 \
  || die "the ridge reference run failed or timed out"
log "  $(grep '^ridge data:' "$LOGS/ridge-data.log") ($((SECONDS - t))s with the reference)"

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
# (SUBMIT_CLASS and SUBMIT_EXECUTOR_MEMORY change the class and the executors' memory)
submit() {
  timeout -k 30 "$RUN_TIMEOUT" java -Xmx512m "${OPENS[@]}" -cp "$SPARK_HOME/jars/*" \
  -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
  org.apache.spark.deploy.SparkSubmit \
  --master "spark://127.0.0.1:$MASTER_PORT" --deploy-mode client \
  --name nlspark-scale-check --class "${SUBMIT_CLASS:-$CHECK}" \
  --driver-memory 512m --executor-memory "${SUBMIT_EXECUTOR_MEMORY:-2g}" \
  --total-executor-cores 2 --jars "$BENCH_JAR" \
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

# same_npy REF OUT MIN WHAT [MODE]: every .npy of REF byte-identical in OUT, at least MIN of
# them, OUT's summary.json with both peak heaps and the ingest mode MODE (default blocks)
same_npy() {
  local ref=$1 out=$2 min=$3 what=$4 mode=${5:-blocks} f n=0
  for f in "$ref"/*.npy; do
    [[ -f $f ]] || die "the $what reference wrote no .npy"
    cmp "$f" "$out/$(basename "$f")" \
      || die "$(basename "$f") differs between the one-JVM $what reference and the cluster run"
    n=$((n + 1))
  done
  ((n >= min)) || die "the $what reference wrote $n .npy files, fewer than $min"
  for key in driver_peak_heap_bytes executor_peak_heap_bytes; do
    grep -q "\"$key\"" "$out/summary.json" || die "the $what summary.json lacks $key"
  done
  grep -q "\"mode\": *\"$mode\"" "$out/summary.json" \
    || die "the $what summary.json does not record the $mode ingest"
  log "  $n $what .npy files byte-identical: $(cd "$ref" && echo ./*.npy)"
}
ROWS=()
# row LOG SECONDS: the run's table row (from ScaleCheck's row: line) with the submit's wall time
row() {
  ROWS+=("$(grep '^row:' "$1" | cut -c6-)	$2")
}
same_npy "$WORK/reference" "$WORK/cluster" 3 "one-sample"
row "$LOGS/cluster.log" "$((SECONDS - t))"

log "glm --tfce on the same files: intercept + 3 covariates, 2 contrasts, $GLM_PERMUTATIONS permutations"
t=$SECONDS
submit glm-cluster "$DATA" "$WORK/glm-cluster" "$GLM_PERMUTATIONS" "$SEED" \
  > "$LOGS/glm-cluster.log" 2>&1 || die "the glm cluster run failed or timed out (${RUN_TIMEOUT}s)"
log "  $(grep '^glm cluster:' "$LOGS/glm-cluster.log") ($((SECONDS - t))s)"
row "$LOGS/glm-cluster.log" "$((SECONDS - t))"
same_npy "$WORK/glm-reference" "$WORK/glm-cluster" 16 "glm"
grep -q '"map_slice_partitions"' "$WORK/glm-cluster/summary.json" \
  || die "glm summary.json lacks map_slice_partitions"

log "one-sample --cluster-threshold on the first $SMALL_SUBJECTS subjects"
t=$SECONDS
submit cluster-threshold "$DATA" "$SMALL" "$WORK/cluster-threshold" "$SMALL_PERMUTATIONS" \
  "$SEED" > "$LOGS/cluster-threshold.log" 2>&1 \
  || die "the --cluster-threshold cluster run failed or timed out (${RUN_TIMEOUT}s)"
row "$LOGS/cluster-threshold.log" "$((SECONDS - t))"
same_npy "$WORK/small-reference/cluster-threshold" "$WORK/cluster-threshold" 4 \
  "--cluster-threshold"

log "one-sample max-T on a DataFrame read from the Parquet table of the same subjects"
t=$SECONDS
submit dataframe "$DATA/table.parquet" "$WORK/dataframe" "$SMALL_PERMUTATIONS" "$SEED" \
  > "$LOGS/dataframe.log" 2>&1 || die "the DataFrame cluster run failed or timed out (${RUN_TIMEOUT}s)"
row "$LOGS/dataframe.log" "$((SECONDS - t))"
same_npy "$WORK/small-reference/dataframe" "$WORK/dataframe" 3 "DataFrame"

log "ridge-bootstrap: each task reads X and Y (float64 more than the driver's heap) on its executor"
t=$SECONDS
SUBMIT_CLASS=$RIDGE SUBMIT_EXECUTOR_MEMORY=3g submit cluster "$DATA/ridge" "$WORK/ridge" \
  "$RIDGE_SAMPLES" "$SEED" "$RIDGE_BUDGET_GB" > "$LOGS/ridge.log" 2>&1 \
  || die "the ridge cluster run failed or timed out (${RUN_TIMEOUT}s)"
row "$LOGS/ridge.log" "$((SECONDS - t))"
same_npy "$WORK/ridge-reference" "$WORK/ridge" 6 "ridge-bootstrap" executors

{
  printf '%-18s %-24s %8s %7s %6s %8s %8s %8s %14s %9s %7s\n' run analysis samples voxels GB \
    ingest_s tiles_s run_s driver_MB exec_MB wall_s
  for r in "${ROWS[@]}"; do
    IFS=$'\t' read -r -a c <<< "$r"
    printf '%-18s %-24s %8s %7s %6s %8s %8s %8s %14s %9s %7s\n' "${c[@]}"
  done
} | tee "$WORK/table.txt" >&2
log "scale-check: OK in $((SECONDS - T0))s"
