#!/usr/bin/env bash
# Fault injection: drives the real launcher (bin/nlspark one-sample on small .npy files) through
# signals at several moments, full and read-only file systems, a mount point as output,
# symlinks, FIFOs, bad schemes and small heaps, the user's own files beside or instead of an
# earlier run, listeners that are not Spark masters, immutable files, a hostile environment
# (scratch directories, SPARK_LOCAL_IP, JVM options, a deleted working directory, open-file limits
# of ulimit -n), colons in NIfTI file names, GLM files whose values overflow, and inputs of
# another kind (MGH, random bytes, a path under a file, TFCE exponents that overflow). For each case
# it checks the exit code, the message (one sentence, no stack trace), and the state of the
# output directory: the old results intact or the new ones complete, no other file touched, no
# temporary file or lock left.
#
# Needs root for the tmpfs cases: they run in a private mount namespace (unshare -m) on a mount
# point made under this script's own temporary directory; no existing mount is touched. Without
# unshare (or not root) those cases are skipped and reported. The immutable-file case needs root
# and chattr on ext4/xfs/btrfs (its temporary directory or it/work); without them it fails.
#
# Every exit code is enforced; NLSPARK_FI_STRICT=0 reports the signal and small-heap codes as
# "pending" instead (for trying a change to the command-line layer).
#
# Usage: it/fault-injection.sh            (prints "fault-injection: N passed, M failed" last)
set -uo pipefail
set -m # background jobs keep SIGINT (without job control bash makes them ignore it)
# Debian's python3 with numpy for the data and the checks (lib.sh's use_nibabel installs
# python3-nibabel, which brings python3-numpy, when missing: the python3 first on PATH may have
# no numpy). In a subshell, so nothing else of lib.sh reaches these runs.
PYTHON=$(
  # shellcheck source=it/lib.sh
  source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" && use_nibabel >&2 && echo "$PYTHON"
) || { echo "fault-injection: cannot find or install python3 with numpy" >&2; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NL="$ROOT/bin/nlspark"
STRICT=${NLSPARK_FI_STRICT:-1}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/nlspark-fi.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The launcher's class-data archive (bin/nlspark: about 1.3 s less per JVM start here) is made
# by the first plain run below, before any case: no case's signal, full disk or odd directory
# meets a JVM that is writing the archive at exit.
export NLSPARK_CDS=1
PASSED=0
FAILED=0
PENDING=0
FAILURES=()

say() { printf 'fault-injection: %s\n' "$*" >&2; }
pass() { PASSED=$((PASSED + 1)); say "ok   $1"; }
fail() { FAILED=$((FAILED + 1)); FAILURES+=("$1: $2"); say "FAIL $1: $2"; }

# A case's checks accumulate here; `verdict NAME` turns them into one pass or fail.
PROBLEMS=()
problem() { PROBLEMS+=("$*"); }
verdict() {
  if ((${#PROBLEMS[@]} == 0)); then pass "$1"; else fail "$1" "$(IFS='; '; echo "${PROBLEMS[*]}")"; fi
  PROBLEMS=()
}

# expect_code CODE [pending]: the last run's exit code; "pending" marks a code the CLI layer owns.
expect_code() {
  if [[ $RC == "$1" ]]; then return; fi
  if [[ ${2:-} == pending && $STRICT != 1 ]]; then
    PENDING=$((PENDING + 1))
    say "pending: exit $RC, expected $1 once the CLI maps it (NLSPARK_FI_STRICT=1 enforces)"
    return
  fi
  problem "exit $RC, expected $1 (stderr: $(tail -c 400 "$ERR" | tr '\n' ' '))"
}
expect_message() { grep -qiF -- "$1" "$ERR" || problem "stderr lacks '$1': $(tail -c 300 "$ERR" | tr '\n' ' ')"; }

# Files under a directory with their hashes (hidden ones included), to compare states.
snapshot() { (cd "$1" && find . \( -type f -o -type l \) -print0 | sort -z | xargs -0r sha256sum); }
expect_same() { [[ "$(snapshot "$1")" == "$2" ]] || problem "$1 changed: $(snapshot "$1" | awk '{print $2}' | tr '\n' ' ')"; }
# After a signal DESIGN §6 allows either state: the old results intact or the new complete.
expect_old_or_new() { # expect_old_or_new DIR SNAPSHOT
  if [[ "$(snapshot "$1")" == "$2" ]]; then return; fi
  say "note: $1 holds the new results (the run finished before the signal took effect)"
  expect_complete "$1"
  [[ $(cat "$1/notes.txt" 2>/dev/null) == "the user's own notes" ]] || problem "notes.txt touched"
}
expect_no_temps() {
  local left
  left=$(find "$1" -name '.nlspark-*' 2>/dev/null | tr '\n' ' ')
  [[ -z $left ]] || problem "left in $1: $left"
}
# The complete result of one-sample with FWER, from one run (its summary lists exactly these).
expect_complete() {
  local d=$1 f
  for f in observed.npy p.npy p_fwer.npy null_max.npy summary.json; do
    [[ -s $d/$f ]] || problem "$d/$f missing"
  done
  "$PYTHON" - "$d" <<'EOF' || problem "$d is not one complete result"
import json, sys, numpy as np
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
assert sorted(s["outputs"]) == ["null_max.npy", "observed.npy", "p.npy", "p_fwer.npy", "summary.json"], s["outputs"]
v = np.load(d + "/p.npy")
assert v.shape == tuple(np.load(d + "/observed.npy").shape)
assert ((v > 0) & (v <= 1)).all()
EOF
  expect_no_temps "$d"
}
# The failure is said in one sentence: one line on stderr besides the JVM's incubator notice,
# no stack trace, none of Spark's log lines.
expect_one_sentence() {
  local lines
  lines=$(grep -v 'Using incubator modules' "$ERR" | grep -c .)
  ((lines == 1)) || problem "stderr has $lines lines, not one sentence: $(head -c 600 "$ERR" | tr '\n' '|')"
}
expect_no_traces() {
  ! grep -qE '^\s+at |Exception|ERROR ' "$ERR" \
    || problem "a stack trace or an error log line on stderr: $(grep -m3 -E '^\s+at |Exception|ERROR ' "$ERR" | tr '\n' '|')"
}
seed_of() { "$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["seed"])' "$1/summary.json" 2>/dev/null; }

# run_nl ARGS...: runs the launcher in the foreground; RC and ERR are set.
ERR=$WORK/stderr
run_nl() {
  timeout -k 30 300 "$NL" one-sample --quiet "$@" 2>"$ERR" >/dev/null
  RC=$?
}
# start_nl ARGS...: in the background; PID is the JVM (the launcher execs it).
start_nl() {
  : >"$ERR" # emptied here, not in the child: wait_for must never see the previous run's text
  timeout -k 30 300 "$NL" one-sample --quiet "$@" 2>"$ERR" >/dev/null &
  PID=$!
}
wait_for() { # wait_for TEXT SECONDS: until stderr shows TEXT
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    grep -qF -- "$1" "$ERR" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# The JVM under the timeout wrapper, which receives the signal as a user's would.
jvm_of() { pgrep -P "$1" java || echo "$1"; }
signal_and_wait() { # signal_and_wait SIG: signals the JVM, waits for the launcher
  kill -s "$1" "$(jvm_of "$PID")" 2>/dev/null
  wait "$PID"
  RC=$?
}

# ---- data -------------------------------------------------------------------------------------
"$PYTHON" - "$WORK" <<'EOF'
import numpy as np, sys
w = sys.argv[1]
r = np.random.default_rng(0)
np.save(w + "/x.npy", r.standard_normal((12, 200)))
np.save(w + "/wide.npy", r.standard_normal((12, 20000)))   # outputs of ~160 KB each
np.save(w + "/slow.npy", r.standard_normal((30, 20000)))   # a computation of several seconds
x = r.standard_normal((12, 200)); x[3, 5] = np.inf
np.save(w + "/inf.npy", x)                                  # refused where it is read
EOF
X=$WORK/x.npy
ARGS=(--permutations 50 --seed 1)
timeout -k 30 300 "$NL" one-sample --quiet --input "$X" --output "$WORK/archive-run" "${ARGS[@]}" \
  >/dev/null 2>&1 || say "note: the run that makes the class-data archive failed (the cases say why)"
rm -rf "$WORK/archive-run"

# An output directory holding an earlier result and a file of the user's.
old_results() { # old_results DIR
  rm -rf "$1"
  timeout -k 30 300 "$NL" one-sample --quiet --input "$X" --output "$1" --permutations 20 --seed 7 \
    >/dev/null 2>"$WORK/setup.err" || { cat "$WORK/setup.err" >&2; return 1; }
  echo "the user's own notes" >"$1/notes.txt"
}

say "building and warming up the launcher"
"$NL" --help >/dev/null 2>&1 || { say "bin/nlspark does not start"; exit 1; }

# ---- plain runs --------------------------------------------------------------------------------
OUT=$WORK/fresh
run_nl --input "$X" --output "$OUT" "${ARGS[@]}"
expect_code 0
expect_complete "$OUT"
"$PYTHON" -c 'import json,sys; k = list(json.load(open(sys.argv[1]))); assert k[0] == "nlspark_output_format", k' \
  "$OUT/summary.json" || problem "summary.json does not start with nlspark's mark"
verdict "a fresh run writes one complete result, its summary.json marked as nlspark's"

OUT=$WORK/over
old_results "$OUT"
run_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
expect_code 0
expect_complete "$OUT"
[[ $(cat "$OUT/notes.txt") == "the user's own notes" ]] || problem "notes.txt touched"
[[ $(seed_of "$OUT") == 1 ]] || problem "summary.json is not the new run's"
verdict "--overwrite replaces the listed results and keeps the user's file"

BEFORE=$(snapshot "$OUT")
run_nl --input "$X" --output "$OUT" "${ARGS[@]}"
expect_code 2
expect_message "--overwrite"
expect_same "$OUT" "$BEFORE"
verdict "a non-empty output without --overwrite is refused"

# ---- signals -----------------------------------------------------------------------------------
for sig in INT TERM; do
  code=$([[ $sig == INT ]] && echo 130 || echo 143)
  OUT=$WORK/sig-compute-$sig
  old_results "$OUT"
  BEFORE=$(snapshot "$OUT")
  start_nl --input "$WORK/slow.npy" --output "$OUT" --permutations 400000 --seed 1 --overwrite
  sleep 8 # the JVM and Spark are up; the computation takes longer than this
  signal_and_wait "$sig"
  expect_code "$code" pending
  expect_old_or_new "$OUT" "$BEFORE"
  expect_no_traces
  verdict "SIG$sig during the computation: old results or complete new ones, no stack trace"

  OUT=$WORK/sig-write-$sig
  old_results "$OUT"
  BEFORE=$(snapshot "$OUT")
  NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=first-write:3000" \
    start_nl --input "$WORK/wide.npy" --output "$OUT" "${ARGS[@]}" --overwrite
  if wait_for "paused at first-write" 120; then
    signal_and_wait "$sig"
    expect_code "$code" pending
    expect_old_or_new "$OUT" "$BEFORE"
  else
    kill -9 "$(jvm_of "$PID")" 2>/dev/null; wait "$PID"
    problem "never reached the first write: $(tail -c 300 "$ERR")"
  fi
  verdict "SIG$sig at the first write: no partial file, old results or complete new ones"

  OUT=$WORK/sig-rename-$sig
  old_results "$OUT"
  NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=between-renames:3000" \
    start_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
  if wait_for "paused at between-renames" 120; then
    signal_and_wait "$sig"
    expect_code "$code" pending
    expect_complete "$OUT" # the commit in progress is finished before the JVM exits
    [[ $(seed_of "$OUT") == 1 ]] || problem "not the new results"
    [[ -f $OUT/notes.txt ]] || problem "notes.txt lost"
  else
    kill -9 "$(jvm_of "$PID")" 2>/dev/null; wait "$PID"
    problem "never reached the renames: $(tail -c 300 "$ERR")"
  fi
  verdict "SIG$sig between two renames completes the new results"
done

OUT=$WORK/kill-rename
old_results "$OUT"
NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=between-renames:20000" \
  start_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
if wait_for "paused at between-renames" 120; then
  signal_and_wait KILL
  [[ -f $OUT/.nlspark-journal ]] || problem "no journal after kill -9 mid-commit (nothing to test)"
  run_nl --input "$X" --output "$OUT" --permutations 50 --seed 2 --overwrite
  expect_code 0
  expect_complete "$OUT"
  [[ $(seed_of "$OUT") == 2 ]] || problem "not the rerun's results"
  [[ $(cat "$OUT/notes.txt") == "the user's own notes" ]] || problem "notes.txt touched"
else
  kill -9 "$(jvm_of "$PID")" 2>/dev/null; wait "$PID"
  problem "never reached the renames: $(tail -c 300 "$ERR")"
fi
verdict "kill -9 between renames: the next run completes the journal, then writes"

# The report is written after the commit: a run killed there must not leave the earlier run's
# report.html describing the new maps (it goes in the commit, with the files it described).
OUT=$WORK/kill-report
old_results "$OUT"
[[ -s $OUT/report.html ]] || problem "the earlier run wrote no report.html (nothing to test)"
NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=report:20000" \
  start_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
if wait_for "paused at report" 120; then
  signal_and_wait KILL
  [[ $(seed_of "$OUT") == 1 ]] || problem "summary.json is not the new run's"
  [[ ! -e $OUT/report.html ]] || problem "the earlier run's report.html is beside the new results"
  [[ $(cat "$OUT/notes.txt") == "the user's own notes" ]] || problem "notes.txt touched"
else
  kill -9 "$(jvm_of "$PID")" 2>/dev/null; wait "$PID"
  problem "never reached the report: $(tail -c 300 "$ERR")"
fi
verdict "kill -9 before the report: no earlier report.html beside the new results"

OUT=$WORK/kill-write
old_results "$OUT"
BEFORE=$(snapshot "$OUT")
NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=first-write:20000" \
  start_nl --input "$WORK/wide.npy" --output "$OUT" "${ARGS[@]}" --overwrite
if wait_for "paused at first-write" 120; then
  signal_and_wait KILL
  temps=("$OUT"/.nlspark-tmp-*)
  [[ -e ${temps[0]} ]] || problem "kill -9 left no temporary file (nothing to test)"
  # a rerun that is refused still must not lose anything; one with --overwrite cleans up
  run_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
  expect_code 0
  expect_complete "$OUT"
  [[ $(cat "$OUT/notes.txt") == "the user's own notes" ]] || problem "notes.txt touched"
else
  kill -9 "$(jvm_of "$PID")" 2>/dev/null; wait "$PID"
  problem "never reached the first write: $(tail -c 300 "$ERR")"
fi
verdict "kill -9 at the first write: the next run removes the stale temporaries"

OUT=$WORK/two-runs
mkdir -p "$OUT"
# The first run waits long enough for the second to start its JVM and Spark on a loaded machine.
NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=first-write:45000" \
  start_nl --input "$X" --output "$OUT" "${ARGS[@]}"
FIRST=$PID
if wait_for "paused at first-write" 120; then
  ERR_FIRST=$ERR
  ERR=$WORK/stderr2
  run_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
  expect_code 2
  expect_message "another nlspark run is writing there"
  ERR=$ERR_FIRST
  wait "$FIRST"
  RC=$?
  expect_code 0
  expect_complete "$OUT"
else
  kill -9 "$(jvm_of "$FIRST")" 2>/dev/null; wait "$FIRST"
  problem "the first run never reached its write"
fi
verdict "a second run on a directory being written is refused by the lock"

# ---- paths -------------------------------------------------------------------------------------
OUT=$WORK/holds-input
mkdir -p "$OUT"
cp "$X" "$OUT/x.npy"
ln -s "$OUT/x.npy" "$WORK/link-to-inside.npy"
BEFORE=$(snapshot "$OUT")
run_nl --input "$WORK/link-to-inside.npy" --output "$OUT" "${ARGS[@]}" --overwrite
expect_code 2
expect_message "contains the input"
expect_same "$OUT" "$BEFORE"
verdict "a symlink to an input inside the output is caught"

mkfifo "$WORK/fifo.npy"
run_nl --input "$WORK/fifo.npy" --output "$WORK/o-fifo" "${ARGS[@]}"
expect_code 2
expect_message "not a regular file"
[[ ! -e $WORK/o-fifo ]] || problem "output created"
verdict "a FIFO as --input is refused, not waited on"

ln -s "$WORK/loop-b.npy" "$WORK/loop-a.npy"
ln -s "$WORK/loop-a.npy" "$WORK/loop-b.npy"
run_nl --input "$WORK/loop-a.npy" --output "$WORK/o-loop" "${ARGS[@]}"
expect_code 2
expect_message "symlink loop"
verdict "a symlink-loop input is named as such"

ln -s "$WORK/out-loop" "$WORK/out-loop"
run_nl --input "$X" --output "$WORK/out-loop" "${ARGS[@]}"
expect_code 2
expect_message "symlink loop"
verdict "a symlink-loop output is a usage error"

cp "$X" "$WORK/scan:1.npy"
run_nl --input "$WORK/scan:1.npy" --output "$WORK/out:1" "${ARGS[@]}"
expect_code 0
expect_complete "$WORK/out:1"
verdict "colons in input and output paths"

run_nl --input "s3a://bucket/x.npy" --output "$WORK/o-s3" "${ARGS[@]}"
expect_code 2
expect_message "hadoop-aws"
verdict "s3a:// without the connector names the jar"

run_nl --input "nosuch://b/x.npy" --output "$WORK/o-scheme" "${ARGS[@]}"
expect_code 2
expect_message "--input nosuch://b/x.npy"
verdict "an unknown scheme is reported against --input"

run_nl --input "hdfs://127.0.0.1:1/x.npy" --output "$WORK/o-hdfs" "${ARGS[@]}"
expect_code 2
expect_message "connection refused"
verdict "hdfs:// with nothing listening is exit 2"

# ---- the user's files: --overwrite and report only where nlspark wrote the summary ------------
OUT=$WORK/users-own
mkdir -p "$OUT"
echo mine >"$OUT/p.npy"
echo mine >"$OUT/report.html"
echo '{"my": 1}' >"$OUT/summary.json"
ln -s "$OUT" "$WORK/users-link"
BEFORE=$(snapshot "$OUT")
run_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
expect_code 2
expect_message "summary.json there was not written by nlspark"
expect_one_sentence
expect_same "$OUT" "$BEFORE"
rm "$OUT/summary.json"
BEFORE=$(snapshot "$OUT")
run_nl --input "$X" --output "$WORK/users-link" "${ARGS[@]}" --overwrite
expect_code 2
expect_message "report.html exists there and no earlier nlspark run listed it"
expect_same "$OUT" "$BEFORE"
rm "$OUT/report.html"
BEFORE=$(snapshot "$OUT")
run_nl --input "$X" --output "$WORK/users-link" "${ARGS[@]}" --overwrite
expect_code 2
expect_message "p.npy exists there and no earlier nlspark run listed it"
expect_same "$OUT" "$BEFORE"
expect_no_temps "$OUT"
verdict "--overwrite replaces none of the user's files where nlspark wrote no summary (also through a symlink)"

OUT=$WORK/report-foreign
mkdir -p "$OUT"
echo '{"my": 1}' >"$OUT/summary.json"
echo theirs >"$OUT/report.html"
BEFORE=$(snapshot "$OUT")
timeout -k 30 300 "$NL" report "$OUT" 2>"$ERR" >/dev/null
RC=$?
expect_code 2
expect_message "summary.json there was not written by nlspark"
expect_same "$OUT" "$BEFORE"
verdict "report DIR leaves another tool's report.html alone"

# ---- inputs of another kind: named, never printed (issue 41) -----------------------------------
printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x00\x01\x00\x00\xff' >"$WORK/brain.mgz"
run_nl --input "$WORK/brain.mgz" --output "$WORK/o-mgz" "${ARGS[@]}"
expect_code 2
expect_message "it is surface data (GIFTI or MGH), which needs its mesh; give --surface"
expect_one_sentence
expect_no_traces
verdict "an .mgz as --input without its mesh names what is missing"

head -c 4096 /dev/urandom >"$WORK/noise.bin"
printf '\0' >>"$WORK/noise.bin"
run_nl --input "$WORK/noise.bin" --output "$WORK/o-noise" "${ARGS[@]}"
expect_code 2
expect_message "noise.bin: it is a binary file, not a NIfTI image"
expect_one_sentence
expect_no_traces
verdict "random bytes as --input are refused, their bytes never printed"

printf 'intercept\n1\n' >"$WORK/design.csv"
run_nl --input "$WORK/design.csv/X.npy" --output "$WORK/o-under" "${ARGS[@]}"
expect_code 2
expect_message "design.csv is a file, not a directory"
expect_one_sentence
verdict "an input path under a regular file names the file"

run_nl --input "$X" --output "$WORK/o-tfce-e" "${ARGS[@]}" --tfce --tfce-e 1e300
expect_code 2
expect_message "--tfce-e must be in (0, 10]"
expect_one_sentence
verdict "a TFCE exponent whose scores overflow is refused"

OUT=$WORK/study-with-notes
run_nl --input "$X" --output "$OUT/run" "${ARGS[@]}"
echo '<html>my notes</html>' >"$OUT/report.html"
BEFORE=$(snapshot "$OUT")
timeout -k 30 300 "$NL" report "$OUT" 2>"$ERR" >/dev/null
RC=$?
expect_code 2
expect_message "its report.html was not written by nlspark"
expect_one_sentence
expect_same "$OUT" "$BEFORE"
verdict "report DIR with a run below and the user's report.html leaves the page alone"

# ---- inputs that would block: FIFOs wherever a NIfTI input stands -------------------------------
command -v mkfifo >/dev/null || problem "mkfifo is missing"
D=$WORK/fifo-nifti
mkdir -p "$D/dir"
mkfifo "$D/in.nii.gz" "$D/dir/sub-01.nii.gz" "$D/list.txt" "$D/mask.nii.gz" "$D/entry.nii.gz"
printf 'not read\n' >"$D/a.nii.gz"
printf 'a.nii.gz\n' >"$D/ok-list.txt"
printf 'a.nii.gz\nentry.nii.gz\n' >"$D/fifo-entry-list.txt"
for input in in.nii.gz dir list.txt fifo-entry-list.txt; do
  run_nl --input "$D/$input" --output "$D/out" "${ARGS[@]}"
  expect_code 2
  expect_message "not a regular file (a FIFO"
  expect_one_sentence
  [[ ! -e $D/out ]] || problem "output created for --input $input"
done
run_nl --input "$D/ok-list.txt" --mask "$D/mask.nii.gz" --output "$D/out" "${ARGS[@]}"
expect_code 2
expect_message "Cannot read --mask $D/mask.nii.gz: it is not a regular file"
[[ ! -e $D/out ]] || problem "output created for the FIFO mask"
verdict "a FIFO as NIfTI input, directory entry, list file, list entry or mask is refused, not waited on"

run_nl --input "$D/ok-list.txt" --mask "$D/dir" --output "$D/out" "${ARGS[@]}"
expect_code 2
expect_message "it is a directory, not a NIfTI file"
expect_one_sentence
verdict "--mask naming a directory is a usage error"

# ---- --master that is not a Spark master ----------------------------------------------------------
# A silent listener and a web server on loopback; they write their ports when ready.
cat >"$WORK/listeners.py" <<'PY'
import os, socket, sys, threading, time
silent = socket.socket(); silent.bind(("127.0.0.1", 0)); silent.listen(8)
web = socket.socket(); web.bind(("127.0.0.1", 0)); web.listen(8)
def serve():
    while True:
        c, _ = web.accept()
        c.recv(4096)
        c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        c.close()
threading.Thread(target=serve, daemon=True).start()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d %d\n" % (silent.getsockname()[1], web.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(3600)
PY
"$PYTHON" "$WORK/listeners.py" "$WORK/ports" &
LISTENER=$!
for _ in $(seq 1 300); do [[ -s $WORK/ports ]] && break; sleep 0.1; done
SILENT=0 WEB=0
read -r SILENT WEB <"$WORK/ports" || problem "the listeners did not start"
run_nl --input "$X" --output "$WORK/o-master" --master "spark://127.0.0.1:$SILENT" "${ARGS[@]}"
expect_code 2
expect_message "gave no answer in Spark's RPC protocol"
expect_one_sentence
run_nl --input "$X" --output "$WORK/o-master" --master "spark://127.0.0.1:$WEB" "${ARGS[@]}"
expect_code 2
expect_message "answered in HTTP"
expect_one_sentence
[[ ! -e $WORK/o-master ]] || problem "output created"
kill "$LISTENER" 2>/dev/null
wait "$LISTENER" 2>/dev/null
verdict "--master naming a silent listener or a web server is exit 2 before Spark starts"

# ---- the environment: each refusal is exit 2 or 3 in one sentence -------------------------------
run_nl --input "$X" --output "$WORK/$(printf 'n%.0s' {1..300})/out" "${ARGS[@]}"
expect_code 2
expect_message "a name in the path is too long"
expect_one_sentence
verdict "an output name over 255 bytes is a usage error"

# Immutable files (chattr +i, root): on the first file system here that takes the flag.
IMM=
command -v chattr >/dev/null || problem "chattr is missing"
for base in "$WORK" "$ROOT/it/work"; do
  probe=$base/imm-probe
  if mkdir -p "$probe" && touch "$probe/f" && chattr +i "$probe/f" 2>/dev/null; then
    chattr -i "$probe/f"
    rm -rf "$probe"
    IMM=$base/imm
    break
  fi
  rm -rf "$probe"
done
if [[ -n $IMM ]]; then
  rm -rf "$IMM"
  old_results "$IMM/res"
  chattr +i "$IMM/res/p.npy"
  BEFORE=$(snapshot "$IMM/res")
  run_nl --input "$X" --output "$IMM/res" "${ARGS[@]}" --overwrite
  expect_code 2
  expect_message "operation not permitted"
  expect_one_sentence
  expect_same "$IMM/res" "$BEFORE"
  chattr -i "$IMM/res/p.npy"
  mkdir -p "$IMM/locked"
  chattr +i "$IMM/locked"
  run_nl --input "$X" --output "$IMM/locked" "${ARGS[@]}"
  expect_code 2
  expect_message "operation not permitted"
  chattr -i "$IMM/locked"
  rm -rf "$IMM"
else
  problem "no file system here takes chattr +i (needs root on ext4, xfs or btrfs)"
fi
verdict "an immutable result or directory (EPERM) is exit 2, old results intact, nothing left aside"

NLSPARK_JAVA_OPTS="-Djava.io.tmpdir=$X" run_nl --input "$X" --output "$WORK/o-tmpdir" "${ARGS[@]}"
expect_code 2
expect_message "Cannot start Spark: its scratch directory (java.io.tmpdir=$X)"
expect_one_sentence
NLSPARK_JAVA_OPTS="-Dspark.local.dir=$X/sub" run_nl --input "$X" --output "$WORK/o-tmpdir" "${ARGS[@]}"
expect_code 2
expect_message "(spark.local.dir=$X/sub) cannot be written"
verdict "an unusable java.io.tmpdir or spark.local.dir is exit 2 in one sentence"

SPARK_LOCAL_IP=garbage.invalid run_nl --input "$X" --output "$WORK/o-ip" "${ARGS[@]}"
expect_code 2
expect_message "SPARK_LOCAL_IP=garbage.invalid cannot be used"
expect_one_sentence
NLSPARK_JAVA_OPTS=-Xmx run_nl --input "$X" --output "$WORK/o-ip" "${ARGS[@]}"
expect_code 2
expect_message "Cannot start Java with NLSPARK_JAVA_OPTS='-Xmx'"
NLSPARK_JIT=fast run_nl --input "$X" --output "$WORK/o-ip" "${ARGS[@]}"
expect_code 2
expect_message "NLSPARK_JIT must be short-job (the default) or default, but was: fast"
mkdir -p "$WORK/gone"
(cd "$WORK/gone" && rmdir "$WORK/gone" && timeout -k 30 300 "$NL" one-sample --quiet --input "$X" \
  --output "$WORK/o-gone" "${ARGS[@]}" 2>"$ERR" >/dev/null)
RC=$?
expect_code 2
expect_message "the current directory no longer exists"
verdict "SPARK_LOCAL_IP=garbage, NLSPARK_JAVA_OPTS=-Xmx, NLSPARK_JIT=fast and a deleted working directory are exit 2"

run_nl --input "hdfs://no-such-host.invalid:8020/x.npy" --output "$WORK/o-hdfs2" "${ARGS[@]}"
expect_code 2
expect_message "unknown host"
expect_one_sentence
run_nl --input "http://127.0.0.1:1/x.npy" --output "$WORK/o-http" "${ARGS[@]}"
expect_code 2
expect_message "connection refused"
expect_one_sentence
verdict "an unknown hdfs:// host and an unreachable http:// input are exit 2"

NLSPARK_JAVA_OPTS=-Dspark.nlspark.ingest=blocks run_nl --input "$WORK/inf.npy" --output "$WORK/o-inf" "${ARGS[@]}"
expect_code 2
expect_message "row 3 holds Infinity at voxel 5"
expect_one_sentence
expect_no_traces
verdict "an executor's refusal (blocks ingest) is said once by nlspark, without Spark's task errors"

OUT=$WORK/demo-users
mkdir -p "$OUT"
echo "the user's own notes" >"$OUT/notes.txt"
BEFORE=$(snapshot "$OUT")
timeout -k 30 300 "$NL" demo --quiet --output "$OUT" 2>"$ERR" >/dev/null
RC=$?
expect_code 2
expect_message "the directory exists and is not empty (it holds notes.txt)"
expect_one_sentence
expect_same "$OUT" "$BEFORE"
verdict "demo into a directory holding the user's files needs --overwrite"

OUT=$WORK/to-dev-full
timeout -k 30 300 "$NL" one-sample --input "$X" --output "$OUT" "${ARGS[@]}" >/dev/full 2>"$ERR"
RC=$?
expect_code 3
expect_message "Cannot write to standard output"
expect_complete "$OUT"
verdict "a result line lost to a full stdout is exit 3, the results in place"

# A run killed with SIGKILL leaves Spark's spill directories; the next start removes them.
SPILL_TMP=$WORK/spill-tmp
mkdir -p "$SPILL_TMP/nlspark-spill-1-1/blockmgr-x" "$SPILL_TMP/blockmgr-not-ours"
echo spilled >"$SPILL_TMP/nlspark-spill-1-1/blockmgr-x/shuffle_0_0_0.data"
NLSPARK_JAVA_OPTS="-Djava.io.tmpdir=$SPILL_TMP" run_nl --input "$X" --output "$WORK/o-spill" "${ARGS[@]}"
expect_code 0
[[ ! -e $SPILL_TMP/nlspark-spill-1-1 ]] || problem "the killed run's spill directory is still there"
[[ -d $SPILL_TMP/blockmgr-not-ours ]] || problem "a directory that is not nlspark's was removed"
left=$(find "$SPILL_TMP" -maxdepth 1 -name 'nlspark-spill-*' | tr '\n' ' ')
[[ -z $left ]] || problem "this run's spill directory was left: $left"
verdict "spill directories of a killed run are removed by the next start, and a run removes its own"

CUDA_TMP=$WORK/cuda-tmp
mkdir -p "$CUDA_TMP"
NLSPARK_JAVA_OPTS="-Djava.io.tmpdir=$CUDA_TMP" timeout -k 30 300 "$NL" env >/dev/null 2>"$ERR"
RC=$?
expect_code 0
left=$(find "$CUDA_TMP" -mindepth 1 -maxdepth 1 | tr '\n' ' ')
[[ -z $left ]] || problem "env left in java.io.tmpdir: $left"
verdict "env leaves nothing in java.io.tmpdir"

# ---- the open-file limit (ulimit -n): exit 3 in one sentence, the output untouched -------------
# bin/nlspark refuses a limit below what the JVM needs for the class path's jars; nlspark refuses
# one that leaves Spark too few descriptors before Spark starts. The second limit is computed
# from the line's class path, so both cases hold on every line and machine.
CLASSPATH_FILE=$ROOT/$(
  # Not followed by shellcheck: this subshell only reads LINE_MODULE, and following it would flag
  # the PYTHON that lib.sh's functions set (SC2031) at every later use.
  # shellcheck source=/dev/null disable=SC2031
  source "$ROOT/it/lib.sh" && echo "$LINE_MODULE"
)/target/classpath.txt
JARS=$(($(tr ':' '\n' <"$CLASSPATH_FILE" | grep -c .) + 1))
limited_nl() { # limited_nl LIMIT ARGS...: one-sample under ulimit -n LIMIT (soft and hard)
  local limit=$1
  shift
  # shellcheck disable=SC2016 # expanded by the inner bash, after ulimit
  timeout -k 30 300 bash -c 'ulimit -n "$1"; shift; exec "$@"' _ "$limit" "$NL" one-sample --quiet "$@" \
    2>"$ERR" >/dev/null
  RC=$?
}
limited_nl 64 --input "$X" --output "$WORK/o-fd64" "${ARGS[@]}"
expect_code 3
expect_message "Cannot start Java: too many open files for the open-file limit (ulimit -n 64)"
expect_message "raise the limit with ulimit -n 4096"
expect_one_sentence
[[ ! -e $WORK/o-fd64 ]] || problem "output created"
verdict "ulimit -n 64 is exit 3 in one sentence naming the limit, before Java starts"

OUT=$WORK/fd-old
old_results "$OUT"
BEFORE=$(snapshot "$OUT")
LIMIT=$((JARS + 64)) # above what the JVM needs to start, below the 128 more Spark is given
limited_nl "$LIMIT" --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
expect_code 3
expect_message "Cannot start Spark: too many open files for the open-file limit (ulimit -n $LIMIT)"
expect_message "raise the limit with ulimit -n 4096"
expect_one_sentence
expect_no_traces
expect_same "$OUT" "$BEFORE"
limited_nl "$LIMIT" --input "$X" --output "$WORK/o-fd-new" "${ARGS[@]}"
expect_code 3
[[ ! -e $WORK/o-fd-new ]] || problem "output created"
verdict "an open-file limit too low for Spark is exit 3 before Spark starts, old results intact"

# ---- a colon in NIfTI file names: every place a name stands, the same bytes as without --------
D=$WORK/colon-nifti
mkdir -p "$D/plain" "$D/colon"
"$PYTHON" - "$D" <<'PY'
import sys, numpy as np, nibabel as nib
d = sys.argv[1]
r = np.random.default_rng(3)
aff = np.diag([2.0, 2.0, 2.0, 1.0])
vols = [r.standard_normal((5, 4, 3)).astype(np.float32) + 0.5 for _ in range(8)]
for i, v in enumerate(vols):
    nib.save(nib.Nifti1Image(v, aff), "%s/plain/sub-%d.nii.gz" % (d, i))
    nib.save(nib.Nifti1Image(v, aff), "%s/colon/sub:%d.nii.gz" % (d, i))
m = np.ones((5, 4, 3), np.uint8); m[0, 0, 0] = 0; m[4, 3, 2] = 0
for name in ("mask.nii.gz", "ma:sk.nii.gz"):
    nib.save(nib.Nifti1Image(m, aff), "%s/%s" % (d, name))
four = np.stack(vols, axis=-1)
for name in ("four.nii.gz", "fo:ur.nii.gz"):
    nib.save(nib.Nifti1Image(four, aff), "%s/%s" % (d, name))
with open(d + "/plain.txt", "w") as f:
    f.writelines("plain/sub-%d.nii.gz\n" % i for i in range(8))
with open(d + "/colon.txt", "w") as f:
    f.writelines("colon/sub:%d.nii.gz\n" % i for i in range(8))
PY
colon_run() { # colon_run NAME ARGS...: one-sample into $D/NAME, exit 0 with report.html
  local name=$1
  shift
  run_nl --output "$D/$name" "${ARGS[@]}" "$@"
  expect_code 0
  [[ -s $D/$name/report.html ]] || problem "$name: no report.html ($(tail -c 200 "$ERR"))"
}
same_maps() { # same_maps NAME: every .npy and .nii.gz of the reference, byte for byte
  local f n=0
  for f in "$D/ref"/*.npy "$D/ref"/*.nii.gz; do
    [[ -f $f ]] || continue
    cmp -s "$f" "$D/$1/$(basename "$f")" || problem "$1: $(basename "$f") differs from the reference"
    n=$((n + 1))
  done
  ((n >= 4)) || problem "the reference wrote only $n maps"
}
colon_run ref --input "$D/plain" --mask "$D/mask.nii.gz"
colon_run dir-entries --input "$D/colon" --mask "$D/mask.nii.gz"
same_maps dir-entries
colon_run list-entries --input "$D/colon.txt" --mask "$D/mask.nii.gz"
same_maps list-entries
colon_run four-d --input "$D/fo:ur.nii.gz" --mask "$D/mask.nii.gz"
same_maps four-d
colon_run mask --input "$D/plain.txt" --mask "$D/ma:sk.nii.gz"
same_maps mask
colon_run uri --input "file://$D/fo:ur.nii.gz" --mask "file://$D/ma:sk.nii.gz"
same_maps uri
verdict "a colon in a NIfTI name (directory and list entries, 4-D input, mask, file:// URI) gives the same bytes"

# ---- GLM files with values whose products overflow ---------------------------------------------
D=$WORK/glm-huge
mkdir -p "$D"
printf 'intercept,age\n' >"$D/design.csv"
for i in $(seq 1 12); do printf '1,%d\n' "$((20 + i))" >>"$D/design.csv"; done
sed '3s/.*/1,1e308/' "$D/design.csv" >"$D/huge-design.csv"
printf 'intercept,age\n0,1\n' >"$D/contrast.csv"
printf 'intercept,age\n0,1e308\n' >"$D/huge-contrast.csv"
glm_nl() {
  timeout -k 30 300 "$NL" glm --quiet --input "$X" --permutations 50 --seed 1 "$@" 2>"$ERR" >/dev/null
  RC=$?
}
glm_nl --design "$D/design.csv" --contrasts "$D/contrast.csv" --output "$D/ok"
expect_code 0
glm_nl --design "$D/huge-design.csv" --contrasts "$D/contrast.csv" --output "$D/o1"
expect_code 2
expect_message "Cannot read the design $D/huge-design.csv: line 3, column 2 (age) holds 1e308, beyond 1e150 in magnitude"
expect_one_sentence
glm_nl --design "$D/design.csv" --contrasts "$D/huge-contrast.csv" --output "$D/o2"
expect_code 2
expect_message "Cannot read the contrasts $D/huge-contrast.csv: line 2, column 2 (age) holds 1e308, beyond 1e150"
expect_one_sentence
[[ ! -e $D/o1 && ! -e $D/o2 ]] || problem "output created"
verdict "1e308 in a design or a contrast is exit 2 naming the line and column"

# ---- memory ------------------------------------------------------------------------------------
"$PYTHON" - "$WORK/huge.npy" <<'EOF'
import sys
# A header declaring 40 x 10,000,000 float64 (3.2 GB) over a sparse file of that size.
rows, cols = 40, 10_000_000
d = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
pad = (64 - (10 + len(d) + 1) % 64) % 64
h = b"\x93NUMPY\x01\x00" + (len(d) + pad + 1).to_bytes(2, "little") + (d + " " * pad + "\n").encode()
with open(sys.argv[1], "wb") as f:
    f.write(h)
    f.truncate(len(h) + rows * cols * 8)
EOF
SECONDS=0
NLSPARK_JAVA_OPTS=-Xmx600m run_nl --input "$WORK/huge.npy" --output "$WORK/o-huge" "${ARGS[@]}"
expect_code 3
expect_message "into voxel blocks: each task reads at least one sample of 10000000 voxels"
expect_message "heap"
expect_one_sentence
[[ ! -e $WORK/o-huge ]] || problem "output created"
((SECONDS < 60)) || problem "took ${SECONDS}s: the data was read before the refusal"
verdict "an input larger than the heap is refused from its header"

OUT=$WORK/small-heap
old_results "$OUT"
BEFORE=$(snapshot "$OUT")
NLSPARK_JAVA_OPTS=-Xmx256m run_nl --input "$X" --output "$OUT" "${ARGS[@]}" --overwrite
expect_code 3 pending
expect_same "$OUT" "$BEFORE"
verdict "a heap below Spark's minimum leaves the output untouched"

# ---- file systems (private mount namespace) ----------------------------------------------------
if [[ $(id -u) == 0 ]] && unshare -m --propagation private true 2>/dev/null; then
  MNT=$WORK/mnt
  mkdir -p "$MNT"
  cat >"$WORK/fs-cases.sh" <<EOF
set -uo pipefail
NL=$NL; X=$X; WIDE=$WORK/wide.npy; MNT=$MNT; R=$WORK/fs-results
export NLSPARK_CDS=1
nl() { timeout -k 30 300 "\$NL" one-sample --quiet "\$@" >/dev/null; echo "\$?"; }
snap() { (cd "\$1" && find . \( -type f -o -type l \) -print0 | sort -z | xargs -0r sha256sum); }
# 1. an empty mount point as output, then --overwrite into it
mount -t tmpfs -o size=8m tmpfs "\$MNT"
echo "mount-first \$(nl --input "\$X" --output "\$MNT" --permutations 50 --seed 1 2>"\$R.mount1.err")" >>"\$R"
echo "mine" >"\$MNT/notes.txt"
echo "mount-over \$(nl --input "\$X" --output "\$MNT" --permutations 50 --seed 3 --overwrite 2>"\$R.mount2.err")" >>"\$R"
mountpoint -q "\$MNT" && echo "mount-still 0" >>"\$R" || echo "mount-still 1" >>"\$R"
cp -a "\$MNT" "\$R.mount-dir"
# 2. the file system turns read-only: --overwrite is refused, old results intact
snap "\$MNT" >"\$R.ro-before"
mount -o remount,ro "\$MNT"
echo "ro \$(nl --input "\$X" --output "\$MNT" --permutations 50 --seed 4 --overwrite 2>"\$R.ro.err")" >>"\$R"
snap "\$MNT" >"\$R.ro-after"
echo "ro-new \$(nl --input "\$X" --output "\$MNT/sub" --permutations 50 2>"\$R.ro2.err")" >>"\$R"
umount "\$MNT"
# 3. disk full while writing: old (small) results intact, no temporary left
mount -t tmpfs -o size=400k tmpfs "\$MNT"
nl --input "\$X" --output "\$MNT/out" --permutations 20 --seed 7 2>/dev/null >/dev/null
snap "\$MNT/out" >"\$R.full-before"
echo "full \$(nl --input "\$WIDE" --output "\$MNT/out" --permutations 50 --seed 5 --overwrite 2>"\$R.full.err")" >>"\$R"
snap "\$MNT/out" >"\$R.full-after"
umount "\$MNT"
# 4. the disk fills up while writing (another writer takes the space after the preflight)
mount -t tmpfs -o size=4m tmpfs "\$MNT"
nl --input "\$X" --output "\$MNT/out" --permutations 20 --seed 7 2>/dev/null >/dev/null
snap "\$MNT/out" >"\$R.fill-before"
( NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=first-write:4000" timeout -k 30 300 "\$NL" one-sample \
    --quiet --input "\$WIDE" --output "\$MNT/out" --permutations 50 --seed 5 --overwrite \
    >/dev/null 2>"\$R.fill.err"; echo "fill \$?" >>"\$R" ) &
for _ in \$(seq 1 600); do
  grep -q "paused at first-write" "\$R.fill.err" 2>/dev/null && break
  sleep 0.2
done
dd if=/dev/zero of="\$MNT/filler" bs=64k 2>/dev/null
wait
rm -f "\$MNT/filler"
snap "\$MNT/out" >"\$R.fill-after"
umount "\$MNT"
# 5. the disk fills while report.html is written, after the results were committed
mount -t tmpfs -o size=4m tmpfs "\$MNT"
nl --input "\$X" --output "\$MNT/out" --permutations 20 --seed 7 2>/dev/null >/dev/null
( NLSPARK_JAVA_OPTS="-Dnlspark.test.pauseAt=report:4000" timeout -k 30 300 "\$NL" one-sample \
    --quiet --input "\$X" --output "\$MNT/out" --permutations 50 --seed 5 --overwrite \
    >/dev/null 2>"\$R.report.err"; echo "report-full \$?" >>"\$R" ) &
for _ in \$(seq 1 600); do
  grep -q "paused at report" "\$R.report.err" 2>/dev/null && break
  sleep 0.2
done
dd if=/dev/zero of="\$MNT/filler" bs=64k 2>/dev/null
wait
rm -f "\$MNT/filler"
cp -a "\$MNT/out" "\$R.report-dir"
umount "\$MNT"
EOF
  : >"$WORK/fs-results"
  unshare -m --propagation private bash "$WORK/fs-cases.sh"
  R=$WORK/fs-results
  code_of() { awk -v k="$1" '$1 == k {print $2}' "$R"; }

  [[ $(code_of mount-first) == 0 ]] || problem "first run into an empty mount point: exit $(code_of mount-first): $(tail -c 300 "$R.mount1.err")"
  [[ $(code_of mount-over) == 0 ]] || problem "--overwrite into a mount point: exit $(code_of mount-over): $(tail -c 300 "$R.mount2.err")"
  [[ $(code_of mount-still) == 0 ]] || problem "the mount point was removed"
  expect_complete "$R.mount-dir"
  [[ $(seed_of "$R.mount-dir") == 3 ]] || problem "not the second run's results"
  [[ $(cat "$R.mount-dir/notes.txt" 2>/dev/null) == mine ]] || problem "notes.txt touched"
  verdict "a mount point as output: written in place, never removed"

  RC=$(code_of ro); ERR=$R.ro.err
  expect_code 2
  expect_message "read-only"
  cmp -s "$R.ro-before" "$R.ro-after" || problem "the read-only directory changed"
  RC=$(code_of ro-new); ERR=$R.ro2.err
  expect_code 2
  expect_message "read-only"
  ERR=$WORK/stderr
  verdict "a read-only output file system is exit 2, old results intact"

  RC=$(code_of full); ERR=$R.full.err
  expect_code 3
  expect_message "free"
  cmp -s "$R.full-before" "$R.full-after" || problem "the old results changed: $(diff "$R.full-before" "$R.full-after" | head -5 | tr '\n' ' ')"
  ERR=$WORK/stderr
  verdict "a file system too small for the results is exit 3 before the computation, old results intact"

  RC=$(code_of fill); ERR=$R.fill.err
  expect_code 3
  expect_message "full"
  cmp -s "$R.fill-before" "$R.fill-after" || problem "the old results changed: $(diff "$R.fill-before" "$R.fill-after" | head -5 | tr '\n' ' ')"
  ERR=$WORK/stderr
  verdict "disk full while writing is exit 3, old results intact, no temporary left"

  RC=$(code_of report-full); ERR=$R.report.err
  expect_code 3
  expect_message "the results are in place, only report.html is missing"
  grep -v 'paused at report' "$ERR" >"$ERR.cut"
  ERR=$ERR.cut
  expect_one_sentence
  expect_complete "$R.report-dir"
  [[ $(seed_of "$R.report-dir") == 5 ]] || problem "not the new results"
  [[ ! -e $R.report-dir/report.html ]] || problem "a report.html of other results is left"
  ERR=$WORK/stderr
  verdict "disk full while report.html is written is exit 3, the results committed, no temporary left"
else
  say "skipped the tmpfs cases (mount point, read-only, disk full): need root and unshare -m"
fi

((PENDING > 0)) && say "$PENDING exit-code expectation(s) pending the CLI layer (NLSPARK_FI_STRICT=1 enforces)"
for f in "${FAILURES[@]}"; do say "failed: $f"; done
echo "fault-injection: $PASSED passed, $FAILED failed"
((FAILED == 0))
