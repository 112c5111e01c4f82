#!/usr/bin/env bash
# Prints the home of the newest JDK installed beside the default one (Debian's /usr/lib/jvm),
# or fails with a sentence: the Spark 4 line is tested on it as well as on JDK 17.
set -euo pipefail
major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
default=$(major java)
best=0 newest=
for home in /usr/lib/jvm/*/; do
  [[ -x ${home}bin/java && -x ${home}bin/javac ]] || continue
  m=$(major "${home}bin/java")
  if [[ $m =~ ^[0-9]+$ ]] && ((m > best)); then best=$m newest=${home%/}; fi
done
if [[ -z $newest ]] || ((best <= default)); then
  echo "Cannot find a JDK newer than the default Java $default under /usr/lib/jvm; set NLSPARK_NEWEST_JDK to one" >&2
  exit 2
fi
echo "$newest"
