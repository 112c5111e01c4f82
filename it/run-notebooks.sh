#!/usr/bin/env bash
# Runs every code cell of every Databricks notebook under notebooks/ (Scala source format), in
# order, in Spark's own REPL (org.apache.spark.repl.Main, what spark-shell runs) on local Spark,
# with the nlspark application jar on the class path and it/notebook-preamble.scala standing in
# for display(...) and dbutils.widgets. A cell that fails to compile or throws makes the REPL
# exit 1 and this script fail, naming the notebook and cell.
#
# Usage: it/run-notebooks.sh [notebooks/NAME.scala ...]   (after: mvn -B install -DskipTests)
# Env:   NLSPARK_JAR=...   application jar (default spark-jobs/target/*-app.jar)
#        NB_TIMEOUT_S=...  bound on each notebook (default 300)
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WORK=$IT_DIR/work/notebooks
TIMEOUT=${NB_TIMEOUT_S:-300}
rm -rf "$WORK"
mkdir -p "$WORK"
T0=$SECONDS
ensure_spark_home
compgen -G "$SPARK_HOME/jars/spark-repl_*.jar" > /dev/null \
  || die "the Scala notebooks need spark-repl, which is published for the 3.5 line only (Scala 2.12); run with NLSPARK_LINE=3.5"
read -r -a OPENS <<< "$(spark_jvm_opens)"
APP_JAR=$(find_app_jar)
[[ -n $APP_JAR && -f $APP_JAR ]] \
  || die "no application jar in $LINE_MODULE/target; run 'mvn -B install -DskipTests' first"

if (($# > 0)); then
  NOTEBOOKS=("$@")
else
  NOTEBOOKS=("$REPO_ROOT"/notebooks/*.scala)
fi

# Splits NOTEBOOK into code cells (markdown-only cells dropped) under DIR/cell-NN.scala and
# writes DIR/input.scala: the REPL commands that paste the preamble, then each cell followed by
# its completion check.
prepare_notebook() {
  local notebook=$1 dir=$2 name=$3
  head -n 1 "$notebook" | grep -qx '// Databricks notebook source' \
    || die "$notebook is not a Databricks notebook: its first line must be '// Databricks notebook source'"
  mkdir -p "$dir"
  awk -v dir="$dir" '
    BEGIN { n = 0 }
    NR == 1 { next }
    /^\/\/ COMMAND ----------$/ { n++; next }
    { cell[n] = cell[n] $0 "\n"; if ($0 !~ /^\/\/ MAGIC/ && $0 !~ /^[[:space:]]*$/) code[n] = 1 }
    END {
      k = 0
      for (i = 0; i <= n; i++) if (code[i]) {
        k++
        f = sprintf("%s/cell-%02d.scala", dir, k)
        printf "%s", cell[i] > f
        printf "\nNotebookCells.mark(%d)\n", k > f
        close(f)
      }
    }' "$notebook"
  {
    echo ":paste $IT_DIR/notebook-preamble.scala"
    local cell k=0
    for cell in "$dir"/cell-*.scala; do
      [[ -f $cell ]] || die "$notebook has no code cell"
      k=$((k + 1))
      echo ":paste $cell"
      echo "NotebookCells.require($k, \"$name\")"
    done
    echo "println(\"[notebook] $name: all cells done\")"
    echo ":quit"
  } > "$dir/input.scala"
}

failed=0
for notebook in "${NOTEBOOKS[@]}"; do
  name=$(basename "$notebook" .scala)
  dir=$WORK/$name
  prepare_notebook "$notebook" "$dir" "$name"
  cells=$(find "$dir" -name 'cell-*.scala' | wc -l)
  log "notebook $name: $cells code cells"
  t=$SECONDS
  # spark-shell is SparkSubmit with the REPL class and the primary resource "spark-shell".
  set +e
  NB_output="file://$dir/output" timeout -k 30 "$TIMEOUT" java -Xmx2g "${OPENS[@]}" \
    -Dscala.usejavacp=true -cp "$SPARK_HOME/jars/*" \
    -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
    org.apache.spark.deploy.SparkSubmit --class org.apache.spark.repl.Main \
    --name "notebook $name" --master 'local[2]' --jars "$APP_JAR" \
    --conf spark.ui.enabled=false --conf spark.ui.showConsoleProgress=false \
    --conf spark.driver.host=127.0.0.1 \
    --conf spark.driver.bindAddress=127.0.0.1 \
    spark-shell < "$dir/input.scala" > "$dir/transcript.log" 2>&1
  rc=$?
  set -e
  if ((rc == 0)) && grep -q "^\[notebook\] $name: all cells done" "$dir/transcript.log"; then
    log "  ok in $((SECONDS - t))s"
  else
    failed=1
    printf '\n===== tail of %s (exit %s) =====\n' "${dir#"$REPO_ROOT"/}/transcript.log" "$rc" >&2
    tail -n 60 "$dir/transcript.log" >&2
    if ((rc == 124)); then
      log "notebook $name FAILED: timed out after ${TIMEOUT}s"
    else
      log "notebook $name FAILED (exit $rc)"
    fi
  fi
done
((failed == 0)) || die "run-notebooks: a notebook failed; transcripts in ${WORK#"$REPO_ROOT"/}"
log "run-notebooks: OK, ${#NOTEBOOKS[@]} notebooks in $((SECONDS - T0))s"
