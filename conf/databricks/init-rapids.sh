#!/usr/bin/env bash
# Databricks cluster init script: puts the RAPIDS Accelerator jar where Databricks Runtime
# loads jars at startup (/databricks/jars), on every node, before Spark starts.
# Upload it as a workspace file (e.g. /Shared/nlspark/init-rapids.sh) and reference it from
# cluster.json's init_scripts. The version must support the cluster's Databricks Runtime
# (RAPIDS release notes list them); override with the RAPIDS_VERSION environment variable
# (cluster.json's spark_env_vars).
set -euo pipefail

RAPIDS_VERSION=${RAPIDS_VERSION:-24.08.1}
JAR=rapids-4-spark_2.12-${RAPIDS_VERSION}.jar
URL=https://repo1.maven.org/maven2/com/nvidia/rapids-4-spark_2.12/${RAPIDS_VERSION}/${JAR}

# Retries: a node that cannot fetch the jar must fail the cluster start, not start without it.
if ! curl --fail --silent --show-error --location --retry 5 --retry-delay 5 \
    --output "/databricks/jars/${JAR}" "$URL"; then
  echo "Cannot install the RAPIDS Accelerator: download of $URL failed" >&2
  exit 1
fi
echo "installed /databricks/jars/${JAR}"
