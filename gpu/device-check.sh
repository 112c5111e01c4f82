#!/bin/bash
# GPU device check, run on a GPU machine that has no Java or Maven: it uses the carried jlink
# runtime and jars (gpu/make-runtime.sh builds both). It finds the CUDA driver, then cuBLAS and
# NVRTC each on its own (toolkit folders, LD_LIBRARY_PATH, pip wheels), no newer than the
# driver's CUDA version, prints what it found, and runs org.nlspark.core.gpu.DeviceCheck: kernel
# parity on adversarial data for every statistic, cuBLAS parity, a forced device OOM with
# unchanged results, and timings against the same run's cuBLAS SGEMM and DGEMM; one table last.
# Usage: gpu/device-check.sh [--quick]     (fits one call of < 10 minutes on one H200)
# Exit: 0 all checks pass, 1 a check failed, 2 the carried runtime is missing, 3 no usable GPU.
set -u
cd "$(dirname "$0")/.." || exit 2
out="${OUT:-gpu/out}"
mkdir -p "$out"
log="$out/device-check.log"
: >"$log"
say() { echo "[device-check] $*" | tee -a "$log"; }

java=gpu/runtime/bin/java
if [ ! -x "$java" ] || ! ls gpu/lib/nlspark-core-*.jar >/dev/null 2>&1 \
    || [ ! -f gpu/lib/nlspark-device-check.jar ]; then
  say "FAIL: the carried runtime is missing (gpu/runtime/bin/java, gpu/lib/nlspark-core-*.jar and gpu/lib/nlspark-device-check.jar);"
  say "build it with gpu/make-runtime.sh on a machine with Maven and carry gpu/runtime and gpu/lib"
  exit 2
fi

# ---- 1. the driver first: libcuda.so.1 and the CUDA version it supports
driver=""
if command -v ldconfig >/dev/null 2>&1; then
  driver=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF; exit}')
fi
if [ -z "$driver" ]; then
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/local/nvidia/lib \
           /usr/lib/wsl/lib /run/opengl-driver/lib; do
    if [ -e "$d/libcuda.so.1" ]; then driver="$d/libcuda.so.1"; break; fi
  done
fi
if [ -z "$driver" ]; then
  say "no GPU: no NVIDIA driver on this machine (libcuda.so.1 not found by ldconfig or in the usual folders)"
else
  say "driver: $driver"
  driver_dir=$(dirname "$driver")
  case ":${LD_LIBRARY_PATH:-}:" in
    *":$driver_dir:"*) ;;
    *) export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$driver_dir" ;;
  esac
fi
cuda_version=""
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=name,driver_version,memory.free,memory.total --format=csv 2>&1 \
    | head -3 | tee -a "$log"
  cuda_version=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9][0-9]*\.[0-9]*\).*/\1/p' | head -1)
fi
driver_major="${cuda_version%%.*}"
say "driver's CUDA version: ${cuda_version:-unknown (nvidia-smi absent; the shim reads cuDriverGetVersion)}"

# ---- 2. cuBLAS and NVRTC, each on its own, newest CUDA major not newer than the driver's
folders=()
IFS=: read -r -a from_path <<<"${LD_LIBRARY_PATH:-}"
for d in "${from_path[@]}"; do [ -n "$d" ] && folders+=("$d"); done
folders+=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib)
for d in /usr/local/cuda-*/lib64 /usr/local/cuda-*/targets/x86_64-linux/lib; do
  [ -d "$d" ] && folders+=("$d")
done
sites=()
if command -v python3 >/dev/null 2>&1; then
  while IFS= read -r d; do sites+=("$d"); done < <(python3 -c \
    'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
fi
for d in /usr/local/lib/python3*/site-packages /usr/local/lib/python3*/dist-packages \
         /usr/lib/python3*/site-packages /usr/lib/python3*/dist-packages \
         /opt/conda/lib/python3*/site-packages "$HOME"/.local/lib/python3*/site-packages; do
  [ -d "$d" ] && sites+=("$d")
done
for s in "${sites[@]}"; do
  for d in "$s"/nvidia/*/lib "$s"/nvidia/*/lib64; do [ -d "$d" ] && folders+=("$d"); done
done
folders+=(/usr/lib/x86_64-linux-gnu /usr/lib64)

# find_lib NAME: the newest libNAME.so.MAJOR[.MINOR] whose MAJOR <= the driver's, over all folders
find_lib() {
  local name="$1" best="" best_major=0 f base major
  for d in "${folders[@]}"; do
    for f in "$d"/lib"$name".so.[0-9]*; do
      [ -e "$f" ] || continue
      base=$(basename "$f")
      major=${base#lib"$name".so.}
      major=${major%%.*}
      case "$major" in ''|*[!0-9]*) continue ;; esac
      if [ -n "$driver_major" ] && [ "$major" -gt "$driver_major" ]; then continue; fi
      if [ "$major" -gt "$best_major" ]; then best="$f"; best_major="$major"; fi
    done
  done
  echo "$best"
}
for lib in cublas nvrtc; do
  found=$(find_lib "$lib")
  if [ -z "$found" ]; then
    say "lib$lib: not found (searched ${#folders[@]} folders: LD_LIBRARY_PATH, /usr/local/cuda*/lib*, pip wheels' nvidia/*/lib)"
    continue
  fi
  say "lib$lib: $found"
  dir=$(dirname "$found")
  case ":${LD_LIBRARY_PATH:-}:" in
    *":$dir:"*) ;;
    *) export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir" ;;
  esac
done
say "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"

# ---- 3. the check itself (it prints what the shim loaded, then one table last)
timeout 560 "$java" -Xmx24g -cp "gpu/lib/*" org.nlspark.core.gpu.DeviceCheck "$@" 2>&1 \
  | tee -a "$log"
rc=${PIPESTATUS[0]}
case "$rc" in
  0) say "all checks passed" ;;
  3) say "no GPU: no usable CUDA device (the reason is above); nothing ran on a GPU" ;;
  124) say "FAIL: the check ran past its time limit" ;;
  *) say "FAIL: exit $rc" ;;
esac
exit "$rc"
