#!/bin/bash
# GPU device check: parity GPU vs CPU for every statistic, a forced device OOM with recovery, and
# timings against the same run's cuBLAS SGEMM rate; prints a table last. Needs no Java on the
# machine: it uses the carried jlink runtime and jars (gpu/make-runtime.sh builds both).
# Usage: gpu/device-check.sh [--quick]      (fits one call of < 10 minutes on one H200)
set -u
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version,memory.free,memory.total --format=csv 2>&1 | head -3
# cuBLAS and NVRTC may live outside the loader's path (toolkit or pip wheels): add what exists.
extra=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64 \
         /usr/lib/x86_64-linux-gnu $(ls -d /usr/local/lib/python3*/dist-packages/nvidia/*/lib \
         /usr/lib/python3*/site-packages/nvidia/*/lib 2>/dev/null); do
  if ls "$d"/libcublas.so.* "$d"/libnvrtc.so.* >/dev/null 2>&1; then extra="$extra:$d"; fi
done
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}$extra"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
out="${OUT:-gpu/out}"
mkdir -p "$out"
timeout 540 gpu/runtime/bin/java -Xmx24g -cp "gpu/lib/*" org.nlspark.core.gpu.DeviceCheck "$@" \
  2>&1 | tee "$out/device-check.log"
exit "${PIPESTATUS[0]}"
