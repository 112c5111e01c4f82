#!/usr/bin/env bash
# The Python package (python/, import name nlspark) against real pyspark, nilearn and nibabel:
# a fresh virtual environment under target/, pinned versions from the package registry, the
# application jar(s) copied into the package, `pip install ./python`, then pytest (python/tests:
# every function against bin/nlspark, the nilearn drop-in against nilearn, the wheel in a fresh
# venv, the Python notebook cell by cell). Fails when pytest fails or collects no test.
#
# Usage: it/python-tests.sh [pytest args]   (after: mvn -B install -DskipTests)
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# pyspark runs the Spark it bundles; lib.sh's SPARK_HOME (the Maven-laid one) would replace it.
unset SPARK_HOME SPARK_SCALA_VERSION

# The versions the suite runs against (one Spark line per pyspark; python/nlspark/_jars.py).
PACKAGES=(pyspark==3.5.3 nilearn==0.14.1 nibabel==5.4.2 pandas==3.1.1 numpy==2.4.6
  scikit-learn==1.9.1 pytest==9.2.0 build==1.6.1 wheel==0.48.0
  matplotlib==3.11.2)

VENV=$REPO_ROOT/target/python-venv
PYTHON_BIN=${NLSPARK_PYTHON_BIN:-python3}
T0=$SECONDS
rm -rf "$VENV"
"$PYTHON_BIN" -m venv "$VENV" || die "cannot create a virtual environment with $PYTHON_BIN -m venv"
log "installing ${PACKAGES[*]}"
"$VENV/bin/pip" install -q --disable-pip-version-check "${PACKAGES[@]}" \
  || die "cannot install the pinned Python packages"
"$REPO_ROOT/python/copy-jars.sh" || die "no application jar to put in the package"
"$VENV/bin/pip" install -q --disable-pip-version-check "$REPO_ROOT/python" \
  || die "cannot install ./python"
export NLSPARK_TEST_VENV_PACKAGES="${PACKAGES[*]}"
cd "$REPO_ROOT/python/tests"
set +e
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
log "python tests: pytest exit $rc in $((SECONDS - T0)) s"
# pytest exits 5 when it collected no test: that is a failure too.
exit "$rc"
