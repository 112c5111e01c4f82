#!/usr/bin/env bash
# The Python package (python/, import name nlspark) against real pyspark, nilearn and nibabel:
# a fresh virtual environment under target/, pinned versions from the package registry, the
# application jar(s) copied into the package, `pip install ./python`, then pytest (python/tests:
# every function against bin/nlspark, the nilearn drop-in against nilearn, the wheel in a fresh
# venv, the Python notebook cell by cell), on pyspark 3.5 and (a subset) on pyspark 4.2 and 4.3,
# the minors of conf/spark-lines.tsv's pyspark column. Fails when pytest fails or collects no test.
#
# Usage: it/python-tests.sh [pytest args]   (after: mvn -B install -DskipTests)
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# pyspark runs the Spark it bundles; lib.sh's SPARK_HOME (the Maven-laid one) would replace it.
unset SPARK_HOME SPARK_SCALA_VERSION

# The versions the suite runs against. The whole suite runs on the 3.5 line (pyspark 3.5.3, with
# nilearn); the 4.2 line's jar, on pyspark 4.2.0 and on 4.3.0 (the Spark it bundles is the runtime),
# runs the functions against the command line and the session and error checks. Each pyspark
# picks its line's jar (conf/spark-lines.tsv). pandas stays below 3, as the package asks.
PACKAGES=(pyspark==3.5.3 nilearn==0.14.1 nibabel==5.4.2 pandas==2.3.3 numpy==2.4.6
  scikit-learn==1.9.1 pytest==9.2.0 build==1.6.1 wheel==0.48.0
  matplotlib==3.11.2 scipy==1.17.1)
# scipy: the peer of test_arguments.py's Welch t (variance groups)
SPARK4_COMMON=(nibabel==5.4.2 pandas==2.3.3 numpy==2.4.6 pytest==9.2.0 scipy==1.17.1)
# pyspark 4.3.0 is published as a source distribution only (about 460 MB, with Spark's jars).
# One venv for both, 4.2.0 last: it/spark-connect.sh then reuses that venv as it is.
SPARK4_PYSPARKS=(4.3.0 4.2.0)
TESTS_4_2=(test_commands.py test_session_and_errors.py test_result_write.py test_arguments.py
  test_contrast_names.py test_provenance_and_messages.py)
# On 4.3 the same jar runs the functions against the command line again, on 4.3's bundled
# Spark; the rest is the package's own Python, which ran on 4.2 with the same jar (the session
# checks, arguments, contrast names, Result.write, messages: about 100 s more here).
TESTS_4_3=(test_commands.py)

PYTHON_BIN=${NLSPARK_PYTHON_BIN:-python3}
T0=$SECONDS
"$REPO_ROOT/python/copy-jars.sh" || die "no application jar to put in the package"

# A fresh venv at VENV with PACKAGES..., then ./python.
fresh_venv() {
  local venv=$1
  shift
  rm -rf "$venv"
  "$PYTHON_BIN" -m venv "$venv" || die "cannot create a virtual environment with $PYTHON_BIN -m venv"
  log "installing $* into ${venv#"$REPO_ROOT"/}"
  "$venv/bin/pip" install -q --disable-pip-version-check "$@" \
    || die "cannot install the pinned Python packages"
  "$venv/bin/pip" install -q --disable-pip-version-check "$REPO_ROOT/python" \
    || die "cannot install ./python"
}

cd "$REPO_ROOT/python/tests"
fresh_venv "$REPO_ROOT/target/python-venv" "${PACKAGES[@]}"
set +e
NLSPARK_TEST_VENV_PACKAGES="${PACKAGES[*]}" "$REPO_ROOT/target/python-venv/bin/python" -m pytest \
  -q -p no:cacheprovider "$@"
rc=$?
set -e
log "python tests, pyspark 3.5.3: pytest exit $rc in $((SECONDS - T0)) s"
rc4=0
venv="$REPO_ROOT/target/python-venv-4.2"
for pyspark in "${SPARK4_PYSPARKS[@]}"; do
  if [[ $pyspark == "${SPARK4_PYSPARKS[0]}" ]]; then
    fresh_venv "$venv" "pyspark==$pyspark" "${SPARK4_COMMON[@]}"
  else # the next pyspark over the first one's: the other packages are the same
    log "installing pyspark==$pyspark into ${venv#"$REPO_ROOT"/}"
    "$venv/bin/pip" install -q --disable-pip-version-check "pyspark==$pyspark" \
      || die "cannot install pyspark==$pyspark"
  fi
  set +e
  tests=("${TESTS_4_2[@]}")
  [[ $pyspark == 4.3.* ]] && tests=("${TESTS_4_3[@]}")
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "${tests[@]}"
  rc_line=$?
  set -e
  log "python tests, pyspark $pyspark: pytest exit $rc_line in $((SECONDS - T0)) s"
  ((rc_line == 0)) || rc4=$rc_line
done
# pytest exits 5 when it collected no test: that is a failure too.
((rc == 0 && rc4 == 0))
