#!/usr/bin/env bash
# Submits an nlspark command to a Dataproc cluster made by create-cluster.sh.
# Usage: CLUSTER=nlspark-gpu REGION=us-central1 BUCKET=gs://my-bucket \
#          conf/dataproc/submit-job.sh bootstrap --input gs://my-bucket/x.npy \
#          --output gs://my-bucket/out --samples 10000 --backend auto
# The application jar is uploaded from spark-jobs/target (build it with mvn -B package first).
set -euo pipefail

CLUSTER=${CLUSTER:-nlspark-gpu}
REGION=${REGION:-us-central1}
BUCKET=${BUCKET:?set BUCKET=gs://<your-bucket>}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAR=$(find "$ROOT/spark-jobs/target" -maxdepth 1 -name 'nlspark-spark-3.5_2.12-*-app.jar' | head -n 1)
[[ -n $JAR ]] || { echo "Cannot submit: no application jar in spark-jobs/target; run 'mvn -B package -DskipTests' first" >&2; exit 2; }
(($# > 0)) || { echo "Cannot submit: give an nlspark command, e.g. bootstrap --input gs://... --output gs://..." >&2; exit 2; }

gsutil cp "$JAR" "$BUCKET/jars/$(basename "$JAR")"

args=(
  --cluster "$CLUSTER"
  --region "$REGION"
  # The CLI entry point; the jar is shaded with Spark and Hadoop provided by the cluster.
  --class org.nlspark.spark.Main
  --jars "$BUCKET/jars/$(basename "$JAR")"
  # Java 17 needs the same --add-opens as locally (the root pom's spark.jvm.opens); the
  # cluster property dataproc:dataproc.java.version=17 already selects Java 17. '^#^' makes
  # '#' the separator because the value has commas and spaces.
  --properties "^#^spark.executor.extraJavaOptions=$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' "$ROOT/pom.xml") --add-modules jdk.incubator.vector#spark.driver.extraJavaOptions=$(sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' "$ROOT/pom.xml") --add-modules jdk.incubator.vector"
  # Everything after -- goes to nlspark; add --backend auto to use the GPUs when present.
  --
)
gcloud dataproc jobs submit spark "${args[@]}" "$@"
