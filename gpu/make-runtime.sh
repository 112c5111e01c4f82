#!/bin/sh
# Prepares what the device check carries to a GPU machine that has no Java:
#   gpu/runtime/  a jlink runtime (java.base, java.logging, java.management, jdk.unsupported)
#   gpu/lib/      the core jar (with the CUDA shim inside) and its runtime dependencies
# Run from the repository root after `mvn -B -o package -pl core -DskipTests`.
set -eu
cd "$(dirname "$0")/.."
rm -rf gpu/runtime gpu/lib
jlink --add-modules java.base,java.logging,java.management,jdk.unsupported \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output gpu/runtime
mkdir -p gpu/lib
cp core/target/nlspark-core-*.jar gpu/lib/
mvn -q -B -o dependency:copy-dependencies -pl core -DincludeScope=runtime \
  -DoutputDirectory="$PWD/gpu/lib"
unzip -l gpu/lib/nlspark-core-*.jar | grep -q native/linux-x86_64/libnlspark_cuda.so \
  || { echo "the core jar has no CUDA shim (was gcc missing?)" >&2; exit 1; }
du -sh gpu/runtime gpu/lib
