#!/bin/sh
# Builds the CUDA JNI shim with gcc during the Maven build (phase process-classes).
# Usage: build-shim.sh <java.home> <source.c> <output.so>
# No CUDA toolkit is needed: the shim declares what it uses and dlopens the libraries at run time.
# Without gcc (or JNI headers) the build goes on and the GPU backend reports "shim not built".
java_home="$1"; src="$2"; out="$3"
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
exec gcc -O2 -fPIC -shared -Wall -std=c99 -D_GNU_SOURCE \
  -I"$java_home/include" -I"$java_home/include/linux" \
  -o "$out" "$src" -ldl -lpthread
