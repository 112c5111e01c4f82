#!/usr/bin/env bash
# GPU discovery script for Spark (spark.executor.resource.gpu.discoveryScript): prints the GPUs
# this executor may use as the JSON Spark expects, e.g. {"name": "gpu", "addresses": ["0"]}.
# Assumes the executor runs in a container or node whose visible GPUs are all its own; when
# CUDA_VISIBLE_DEVICES is set, Spark must address those devices by their visible index (0..n-1).
set -euo pipefail

if ! command -v nvidia-smi > /dev/null 2>&1; then
  echo "Cannot discover GPUs: nvidia-smi is not on the PATH of this executor; install the NVIDIA driver or remove spark.executor.resource.gpu.amount" >&2
  exit 1
fi
if ! indexes=$(nvidia-smi --query-gpu=index --format=csv,noheader); then
  echo "Cannot discover GPUs: nvidia-smi failed (driver not loaded?)" >&2
  exit 1
fi
count=$(printf '%s\n' "$indexes" | grep -c '[0-9]' || true)
if [[ -n ${CUDA_VISIBLE_DEVICES:-} ]]; then
  # Visible devices are renumbered from 0 by CUDA.
  IFS=',' read -r -a visible <<< "$CUDA_VISIBLE_DEVICES"
  count=${#visible[@]}
fi
if ((count == 0)); then
  echo "Cannot discover GPUs: nvidia-smi lists no GPU on this node" >&2
  exit 1
fi
addresses=""
for ((i = 0; i < count; i++)); do
  addresses+="${addresses:+, }\"$i\""
done
printf '{"name": "gpu", "addresses": [%s]}\n' "$addresses"
