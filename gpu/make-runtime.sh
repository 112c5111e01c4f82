#!/bin/sh
# Prepares what the device check carries to a GPU machine that has no Java:
#   gpu/runtime/  a jlink runtime (java.base, java.logging, java.management, jdk.unsupported)
#   gpu/lib/      the core jar (with the CUDA shim and the host kernels inside), its runtime
#                 dependencies, and nlspark-device-check.jar: the device check itself
#                 (DeviceCheck, TileParity, AdversarialData, HostGemmDevice), which lives in
#                 core's test sources so that the core jar carries only what runs in production
# Run from the repository root after `mvn -B package -pl core -DskipTests` (which compiles the
# test sources too).
set -eu
cd "$(dirname "$0")/.."
jar=""
for f in core/target/nlspark-core-*.jar; do
  case "$f" in *-sources.jar|*-javadoc.jar) ;; *) [ -f "$f" ] && jar="$f" ;; esac
done
if [ -z "$jar" ]; then
  echo "no core jar: run 'mvn -B package -pl core -DskipTests' first" >&2
  exit 1
fi
if ! unzip -l "$jar" | grep -q native/linux-x86_64/libnlspark_cuda.so; then
  echo "the core jar has no CUDA shim (was gcc missing when it was built?)" >&2
  exit 1
fi
checks="DeviceCheck TileParity AdversarialData HostGemmDevice"
for c in $checks; do
  if [ ! -f "core/target/test-classes/org/nlspark/core/gpu/$c.class" ]; then
    echo "no compiled device check ($c): run 'mvn -B package -pl core -DskipTests' first" >&2
    exit 1
  fi
done
rm -rf gpu/runtime gpu/lib
jlink --add-modules java.base,java.logging,java.management,jdk.unsupported \
  --strip-debug --no-man-pages --no-header-files --compress=2 --output gpu/runtime
mkdir -p gpu/lib
cp "$jar" gpu/lib/
# The device check's classes (with their nested classes), from core's test sources.
lib="$PWD/gpu/lib"
(cd core/target/test-classes && jar --create --file "$lib/nlspark-device-check.jar" $(
  for c in $checks; do
    find org/nlspark/core/gpu -maxdepth 1 \( -name "$c.class" -o -name "$c\$*.class" \)
  done))
# A pinned plugin version: the default one may be missing from an offline local repository.
plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies
mvn -q -B -o "$plugin" -pl core -DincludeScope=runtime -DoutputDirectory="$PWD/gpu/lib" \
  || mvn -q -B "$plugin" -pl core -DincludeScope=runtime -DoutputDirectory="$PWD/gpu/lib"
du -sh gpu/runtime gpu/lib
