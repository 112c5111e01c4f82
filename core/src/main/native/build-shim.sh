#!/bin/sh
# Builds the CUDA JNI shim with gcc during the Maven build (phase process-classes), with the host
# build of the CUDA kernels (nlspark_host.cpp, g++) linked in for the CPU parity suite.
# Usage: build-shim.sh <java.home> <native source dir> <kernel source dir> <output.so>
# No CUDA toolkit is needed: the shim declares what it uses and dlopens the libraries at run time.
# Without gcc (or JNI headers) the build goes on and the GPU backend reports "shim not built";
# without g++ the shim is built without the host kernels (the parity suite is then skipped).
set -e
java_home="$1"; src="$2"; kernels="$3"; out="$4"
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "[nlspark] not Linux x86_64: skipping the CUDA shim (the GPU backend will report 'shim not built')"
  exit 0
fi
if ! command -v gcc >/dev/null 2>&1; then
  echo "[nlspark] gcc not found: skipping the CUDA shim (the GPU backend will report 'shim not built')"
  exit 0
fi
if [ ! -f "$java_home/include/jni.h" ]; then
  echo "[nlspark] no JNI headers under $java_home/include: skipping the CUDA shim"
  exit 0
fi
mkdir -p "$(dirname "$out")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
jni="-I$java_home/include -I$java_home/include/linux"
# -ffp-contract=off: no a*b+c fusion, as NVRTC's --fmad=false and as Java.
# shellcheck disable=SC2086
gcc -O2 -fPIC -Wall -std=c99 -D_GNU_SOURCE -ffp-contract=off $jni -c "$src/nlspark_cuda.c" \
  -o "$tmp/nlspark_cuda.o"
objects="$tmp/nlspark_cuda.o"
if command -v g++ >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  g++ -O2 -fPIC -Wall -std=c++14 -ffp-contract=off -fno-exceptions -fno-rtti -fvisibility=hidden \
    $jni -I"$kernels" -c "$src/nlspark_host.cpp" -o "$tmp/nlspark_host.o"
  objects="$objects $tmp/nlspark_host.o"
else
  echo "[nlspark] g++ not found: the shim is built without the host build of the kernels"
fi
# shellcheck disable=SC2086
gcc -shared -Wl,--no-undefined -o "$out" $objects -ldl -lpthread -lm
