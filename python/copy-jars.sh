#!/usr/bin/env bash
# Copies the Maven-built application jar of each Spark line into python/nlspark/jars/ (ignored
# by git), so that `pip install ./python` (or a wheel built from it) carries them. Run after
# `mvn -DskipTests package`. Fails when no line's jar is built.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=$root/python/nlspark/jars
# The application jar of each Spark line, as built by Maven (one line per Spark line, as
# nlspark/_jars.py SPARK_LINES).
JARS=(
  "spark-jobs/target/nlspark-spark-jobs-*-app.jar"
)
rm -rf "$dest"
mkdir -p "$dest"
copied=0
for pattern in "${JARS[@]}"; do
  for jar in $root/$pattern; do
    [[ -f $jar ]] || continue
    cp "$jar" "$dest/"
    copied=$((copied + 1))
  done
done
((copied > 0)) || { echo "copy-jars: no application jar built (${JARS[*]}); run mvn -DskipTests package first" >&2; exit 1; }
echo "copy-jars: $copied jar(s) into python/nlspark/jars"
