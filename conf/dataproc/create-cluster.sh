#!/usr/bin/env bash
# Creates a Dataproc cluster for nlspark: a CPU master and a pool of single-GPU workers with
# the NVIDIA driver and the RAPIDS Accelerator installed by initialization actions.
# Usage: CLUSTER=nlspark-gpu REGION=us-central1 BUCKET=gs://my-bucket conf/dataproc/create-cluster.sh
# Needs: the gcloud CLI, a project with GPU quota in REGION, a bucket for staging and scripts.
set -euo pipefail

CLUSTER=${CLUSTER:-nlspark-gpu}
REGION=${REGION:-us-central1}
ZONE=${ZONE:-${REGION}-a}
BUCKET=${BUCKET:?set BUCKET=gs://<your-bucket> (staging and init actions)}
WORKERS=${WORKERS:-2}
GPU_TYPE=${GPU_TYPE:-nvidia-tesla-t4}

# Google recommends running initialization actions from your own bucket rather than the
# public goog-dataproc-initialization-actions-REGION buckets, so an upstream change cannot
# alter a cluster you create later. Copy them once.
gsutil cp "gs://goog-dataproc-initialization-actions-${REGION}/gpu/install_gpu_driver.sh" \
  "gs://goog-dataproc-initialization-actions-${REGION}/spark-rapids/spark-rapids.sh" \
  "$BUCKET/init/"

args=(
  # Where the cluster runs; GPUs types differ by zone.
  --region "$REGION"
  --zone "$ZONE"
  # Dataproc 2.2: Spark 3.5 and Java 11 by default; Java 17 is selected below.
  --image-version 2.2-ubuntu22
  # The driver runs on the master in client mode: no GPU, enough memory for the partials.
  --master-machine-type n1-standard-8
  --master-boot-disk-size 200GB
  # The GPU worker pool: one GPU per worker, so one executor per GPU (see rapids-gpu.conf).
  --num-workers "$WORKERS"
  --worker-machine-type n1-standard-16
  --worker-accelerator "type=${GPU_TYPE},count=1"
  --worker-boot-disk-size 200GB
  # Local SSDs for Spark's shuffle and spill directories.
  --num-worker-local-ssds 1
  # Driver install first, then RAPIDS: the second action needs the first's driver.
  --initialization-actions "$BUCKET/init/install_gpu_driver.sh,$BUCKET/init/spark-rapids.sh"
  # Read by the actions: NVIDIA's own driver packages, and RAPIDS for Spark (not Dask).
  --metadata "gpu-driver-provider=NVIDIA,rapids-runtime=SPARK"
  # Init actions may take 15 minutes (driver build); the default 10 is too short.
  --initialization-action-timeout 30m
  # Staging bucket for job jars and driver output.
  --bucket "${BUCKET#gs://}"
  # Web UIs (Spark history, YARN) through the console, without SSH tunnels.
  --enable-component-gateway
  # Cluster-wide Spark settings (prefix spark: = spark-defaults.conf). '^#^' makes '#' the
  # list separator. The discovery script path is where the spark-rapids action installs its
  # script (conf/getGpusResources.sh does the same on clusters without that action).
  --properties "^#^$(cat <<PROPS | paste -sd'#'
spark:spark.executor.resource.gpu.amount=1
spark:spark.task.resource.gpu.amount=0.25
spark:spark.executor.cores=4
spark:spark.executor.resource.gpu.discoveryScript=/usr/lib/spark/scripts/gpu/getGpusResources.sh
spark:spark.rapids.memory.gpu.pool=ASYNC
spark:spark.rapids.memory.gpu.allocFraction=0.4
spark:spark.rapids.memory.gpu.maxAllocFraction=0.5
spark:spark.rapids.memory.gpu.minAllocFraction=0.25
spark:spark.rapids.memory.pinnedPool.size=2g
spark:spark.locality.wait=0s
dataproc:dataproc.java.version=17
PROPS
)"
  # Stop paying for an idle cluster.
  --max-idle 1h
)
gcloud dataproc clusters create "$CLUSTER" "${args[@]}"
