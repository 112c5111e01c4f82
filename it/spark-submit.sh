#!/usr/bin/env bash
# The application jar submitted through the line's own SparkSubmit (Maven's Spark jars laid out as
# a Spark home, as a distribution has them), for every command: each run's .npy files must equal
# the embedded run's (bin/nlspark) bytes. On the Spark 4 line this is done on JDK 17 and again on
# the newest JDK here. Then nlspark installed by coordinate (--packages from the file repository
# that bin/test deploys to, a fresh Ivy cache and no ~/.m2), and the other line's jar refused with
# exit 2 and one sentence. On the other lines, every embedded run is also compared with the default
# line's: the lines give the same bytes.
# Usage: it/spark-submit.sh              (the default line; NLSPARK_LINE=3.5 for the other)
# Env:   IT_SUBMIT_COMMANDS='a|b'           only these commands (one-sample is always needed)
#        NLSPARK_IT_SPARK_VERSION=4.0.1     submit to that release of the line instead (lib.sh)
#        IT_NEWEST_JDK_REFUSED=1            that release cannot run on the newest JDK: expect
#                                           exit 2 and the sentence that says so
#        NLSPARK_NEWEST_JDK=DIR          JDK home of the newest JDK (default: it/newest-jdk.sh)
#        NLSPARK_FILE_REPO=DIR           the file repository (default target/maven-repo)
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUN_TIMEOUT=${IT_RUN_TIMEOUT:-180}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nlspark-submit.XXXXXX")
LOGS=$WORK/logs
mkdir -p "$LOGS" "$WORK/data"
on_exit() {
  local status=$?
  ((status == 0)) || print_log_tails "$LOGS"
  rm -rf "$WORK"
  exit "$status"
}
trap on_exit EXIT

ensure_spark_home
APP_JAR=$(find_app_jar)
[[ -n $APP_JAR && -f $APP_JAR ]] \
  || die "no application jar in $LINE_MODULE/target; run 'mvn -B install -DskipTests' first"
VERSION=$(sed -n 's/^version=//p' <(unzip -p "$APP_JAR" nlspark-build.properties))
FILE_REPO=${NLSPARK_FILE_REPO:-$REPO_ROOT/target/maven-repo}
read -r -a OPENS <<< "$(spark_jvm_opens)"
log "line $NLSPARK_LINE: Spark $LINE_SPARK_VERSION (Scala $LINE_SCALA), $(basename "$APP_JAR")"

# --- inputs: one small study per command --------------------------------------------------
D=$WORK/data
java "$IT_DIR/tools/MakeNpy.java" "$D/x.npy" 20 600 7
java "$IT_DIR/tools/MakeNpy.java" "$D/x2.npy" 16 600 8
java "$IT_DIR/tools/MakeNpy.java" "$D/y.npy" 20 0 9
java "$IT_DIR/tools/MakeNpy.java" "$D/bold.npy" 4,30 200 10
java "$IT_DIR/tools/MakeNpy.java" "$D/roi.npy" 40 200 11
java "$IT_DIR/tools/MakeNpy.java" "$D/target.npy" 40 0 12
java "$IT_DIR/tools/MakeNpy.java" "$D/rx.npy" 30 5 13
java "$IT_DIR/tools/MakeNpy.java" "$D/ry.npy" 30 2 14
{
  echo "intercept,age,group"
  for i in $(seq 0 19); do echo "1,$(( (i * 37) % 23 + 20 )),$(( i % 2 ))"; done
} > "$D/design.csv"
printf 'name,intercept,age,group\nage,0,1,0\ngroup,0,0,1\n' > "$D/contrasts.csv"

# One entry per command: name, then its arguments (without --output).
COMMANDS=(
  "bootstrap|bootstrap --input $D/x.npy --samples 200 --seed 1"
  "one-sample|one-sample --input $D/x.npy --stat t --permutations 200 --seed 2"
  "two-sample|two-sample --input $D/x.npy --input2 $D/x2.npy --stat welch-t --permutations 200 --seed 3"
  "correlation|correlation --input $D/x.npy --target $D/y.npy --method spearman --permutations 200 --seed 4"
  "glm|glm --input $D/x.npy --design $D/design.csv --contrasts $D/contrasts.csv --permutations 200 --seed 5"
  "isc|isc --input $D/bold.npy --metric mean --samples 100 --seed 6"
  "timeseries-correlation|timeseries-correlation --input $D/roi.npy --target $D/target.npy --null circle-shift --permutations 100 --seed 7"
  "ridge-bootstrap|ridge-bootstrap --input $D/rx.npy --target $D/ry.npy --alpha 10 --samples 100 --seed 8"
)

# submit JAVA_BIN NAME ARGS...: the application jar through this line's SparkSubmit (with the
# JVM options in the array JVM_EXTRA, empty unless set). A run that hangs (once, on a CI machine,
# a Spark 3.5 submit never ended) prints its threads and is tried once more; a second hang fails.
JVM_EXTRA=()
submit() {
  local code=0
  submit_once "$@" || code=$?
  if ((code == 124 || code == 137)); then
    log "$2: the run above hung; trying it once more"
    local a prev=
    for a in "$@"; do
      [[ $prev == --output ]] && rm -rf "$a" # what the hung run left is not a result
      prev=$a
    done
    code=0
    submit_once "$@" || code=$?
  fi
  return "$code"
}
submit_once() {
  local java_bin=$1 name=$2
  shift 2
  java_limited "$RUN_TIMEOUT" "$LOGS/$name.log" "$java_bin" -Xmx1g "${OPENS[@]}" "${JVM_EXTRA[@]}" \
    -cp "$SPARK_HOME/jars/*" -Dlog4j2.configurationFile="$REPO_ROOT/conf/log4j2.properties" \
    org.apache.spark.deploy.SparkSubmit --master 'local[2]' --name "nlspark-it-$name" \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
    --conf spark.ui.enabled=false "$@"
}

# java_major JAVA_BIN: the feature release of a java binary (17, 21, 25...).
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

JDKS=(java)
if [[ $NLSPARK_LINE == 4.* ]]; then
  newest=${NLSPARK_NEWEST_JDK:-$("$IT_DIR/newest-jdk.sh")} || die "no newer JDK to test the Spark 4 line on"
  JDKS+=("$newest/bin/java")
fi

DEFAULT_LINE=$(awk -F'\t' '!/^#/ {print $1; exit}' "$SPARK_LINES_FILE")
runs=0
for entry in "${COMMANDS[@]}"; do
  name=${entry%%|*}
  # IT_SUBMIT_COMMANDS='one-sample|glm' runs only those (one-sample is needed by what follows).
  [[ -z ${IT_SUBMIT_COMMANDS:-} || $name =~ ^(${IT_SUBMIT_COMMANDS})$ ]] || continue
  read -r -a args <<< "${entry#*|}"
  ref=$WORK/embedded/$name
  timeout -k 30 "$RUN_TIMEOUT" "$REPO_ROOT/bin/nlspark" "${args[@]}" --quiet --output "$ref" \
    > "$LOGS/embedded-$name.log" 2>&1 || die "embedded $name failed"
  if [[ $NLSPARK_LINE != "$DEFAULT_LINE" ]]; then
    # Both lines give the same bytes: this line's embedded run against the default line's.
    NLSPARK_LINE=$DEFAULT_LINE timeout -k 30 "$RUN_TIMEOUT" "$REPO_ROOT/bin/nlspark" "${args[@]}" --quiet \
      --output "$WORK/default-line/$name" > "$LOGS/default-line-$name.log" 2>&1 \
      || die "embedded $name on line $DEFAULT_LINE failed"
    compare_npy_dirs "$WORK/default-line/$name" "$ref" "line $NLSPARK_LINE against line $DEFAULT_LINE, $name"
  fi
  for java_bin in "${JDKS[@]}"; do
    jdk=$(java_major "$java_bin")
    out=$WORK/submit-jdk$jdk/$name
    if [[ ${IT_NEWEST_JDK_REFUSED:-0} == 1 && $java_bin != java ]]; then
      # This Spark cannot run on the newest JDK (Spark 4.0's Hadoop on Java 24+): nlspark must
      # say so in one sentence, exit 2, and write nothing.
      set +e
      submit "$java_bin" "$name-jdk$jdk" --class org.nlspark.spark.Main "$APP_JAR" \
        "${args[@]}" --quiet --output "$out"
      code=$?
      set -e
      [[ $code -eq 2 ]] || die "spark-submit $name on JDK $jdk exited $code, not 2"
      grep -q "^nlspark $name: Cannot run on Spark $LINE_SPARK_VERSION with Java $jdk: " \
        "$LOGS/$name-jdk$jdk.log" || die "spark-submit $name on JDK $jdk did not say why it cannot run"
      [[ ! -e $out ]] || die "the refused run wrote $out"
      continue
    fi
    submit "$java_bin" "$name-jdk$jdk" --class org.nlspark.spark.Main "$APP_JAR" \
      "${args[@]}" --quiet --output "$out" || die "spark-submit $name on JDK $jdk failed"
    compare_npy_dirs "$ref" "$out" "spark-submit $name on JDK $jdk"
    runs=$((runs + 1))
  done
done
log "$runs spark-submit runs byte-identical to the embedded runs (JDKs: ${JDKS[*]})"

# --- install by coordinate -----------------------------------------------------------------
[[ -d $FILE_REPO/org/nlspark/$LINE_ARTIFACT ]] \
  || die "no $LINE_ARTIFACT in $FILE_REPO; bin/test deploys there (mvn deploy with -DaltDeploymentRepository)"
entry=${COMMANDS[1]}
read -r -a args <<< "${entry#*|}"
# A fresh Ivy cache and a home without ~/.m2, so the jar can only come from the file repository.
JVM_EXTRA=(-Duser.home="$WORK/home")
PACKAGES="org.nlspark:$LINE_ARTIFACT:$VERSION"
if [[ $NLSPARK_LINE == 3.* ]]; then
  # Spark 3.5's Ivy fetches only the linux-x86_64 jar of org.bytedeco:openblas, which core
  # depends on twice (classes, natives): without its classes the bundled OpenBLAS cannot load,
  # another BLAS runs and the bytes differ. Naming it brings the classes (docs/guide/platforms.md,
  # "By coordinate").
  openblas=$(sed -n 's:.*<openblas.version>\(.*\)</openblas.version>.*:\1:p' "$REPO_ROOT/pom.xml")
  PACKAGES+=",org.bytedeco:openblas:$openblas"
fi
submit java packages --conf spark.jars.ivy="$WORK/ivy" \
  --packages "$PACKAGES" --repositories "file://$FILE_REPO" \
  --class org.nlspark.spark.Main spark-internal "${args[@]}" --quiet --output "$WORK/packages" \
  || die "spark-submit --packages $PACKAGES failed"
grep -q "org.nlspark#$LINE_ARTIFACT" "$LOGS/packages.log" \
  || die "the --packages run did not resolve org.nlspark:$LINE_ARTIFACT"
JVM_EXTRA=()
grep -q '"blas": "native OpenBLAS [^"]*(bundled' "$WORK/packages/summary.json" \
  || die "the --packages run did not use the bundled OpenBLAS: $(grep -o '"blas": "[^"]*"' "$WORK/packages/summary.json")"
compare_npy_dirs "$WORK/embedded/one-sample" "$WORK/packages" "--packages one-sample"

# --- the other line's jar is refused --------------------------------------------------------
other=$(awk -F'\t' -v l="$NLSPARK_LINE" '!/^#/ && $1 != l {print $4 "/target/" $5; exit}' "$SPARK_LINES_FILE")
other_jar=$(find "$REPO_ROOT/${other%/*}" -maxdepth 1 -name "${other##*/}-*-app.jar" | head -n 1)
[[ -n $other_jar ]] || die "the other line's application jar ($other-*-app.jar) is not built"
set +e
submit java wrong-line --class org.nlspark.spark.Main "$other_jar" "${args[@]}" --output "$WORK/wrong"
code=$?
set -e
[[ $code -eq 2 ]] || die "the other line's jar exited $code, not 2"
grep -q "^nlspark: Cannot run org.nlspark:.* on Spark $LINE_SPARK_VERSION (Scala $LINE_SCALA): this jar is built for Spark .*; use org.nlspark:$LINE_ARTIFACT:$VERSION instead.$" \
  "$LOGS/wrong-line.log" || die "the other line's jar did not say which artifact to use"
[[ ! -e $WORK/wrong ]] || die "the refused run wrote $WORK/wrong"
log "refused: $(grep '^nlspark: Cannot run' "$LOGS/wrong-line.log")"
log "OK: spark-submit on line $NLSPARK_LINE"
