#!/usr/bin/env bash
# Copies the Maven-built application jar of each Spark line of conf/spark-lines.tsv (the one
# table of lines) into python/nlspark/jars/ (ignored by git), with that table, so that
# `pip install ./python` (or a wheel built from it) carries them and picks the jar matching the
# installed pyspark; and the Spark Connect message the Maven build compiled for Python
# (connect/src/main/proto -> python/nlspark/connect_pb2.py, ignored by git too). Run after
# `mvn -DskipTests package`. Fails when no line's jar is built or the message is not compiled.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lines=$root/conf/spark-lines.tsv
dest=$root/python/nlspark/jars
# setuptools keeps a build tree whose stale jars would go into the wheel too
rm -rf "$dest" "$root/python/build"
mkdir -p "$dest"
cp "$lines" "$dest/spark-lines.tsv"
copied=0
while IFS=$'\t' read -r line _spark _scala module artifact _pyspark; do
  [[ -z $line || $line == \#* ]] && continue
  for jar in "$root/$module/target/$artifact"-*-app.jar; do
    [[ -f $jar ]] || continue
    cp "$jar" "$dest/"
    echo "copy-jars: Spark $line: $(basename "$jar")"
    copied=$((copied + 1))
  done
done < "$lines"
((copied > 0)) || { echo "copy-jars: no application jar is built for any line of conf/spark-lines.tsv; run mvn -DskipTests package first" >&2; exit 1; }
pb2=$root/connect/target/generated-sources/protobuf/python/nlspark/connect_pb2.py
[[ -f $pb2 ]] || { echo "copy-jars: the Spark Connect message is not compiled ($pb2); run mvn -DskipTests package first" >&2; exit 1; }
cp "$pb2" "$root/python/nlspark/connect_pb2.py"
