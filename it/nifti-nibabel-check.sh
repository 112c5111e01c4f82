#!/usr/bin/env bash
# Cross-checks nlspark's NIfTI reader and writer against real nibabel (DESIGN §8): nibabel
# writes images that nlspark reads (values, affines), nlspark writes maps and masks that
# nibabel opens (values in NiftiMasker's voxel order, fill, affine, sform/qform). Installs
# Debian's python3-nibabel when it is missing; never skips. Builds core's test classes in the
# reactor (no mvn install).
# Usage: it/nifti-nibabel-check.sh     prints "nifti-nibabel: N passed, 0 failed"
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

# Debian's python3-nibabel lives in the system interpreter, which a pyenv shim may hide.
PYTHON=${NLSPARK_PYTHON:-/usr/bin/python3}
[[ -x $PYTHON ]] || PYTHON=python3
if ! "$PYTHON" -c 'import nibabel' > /dev/null 2>&1; then
  log "installing python3-nibabel (apt-get)"
  sudo=()
  ((EUID == 0)) || sudo=(sudo)
  "${sudo[@]}" apt-get install -y -q python3-nibabel > /dev/null 2>&1 \
    || { "${sudo[@]}" apt-get update -q > /dev/null 2>&1 \
      && "${sudo[@]}" apt-get install -y -q python3-nibabel > /dev/null 2>&1; } \
    || die "cannot install python3-nibabel with apt-get; install it and rerun"
  "$PYTHON" -c 'import nibabel' || die "nibabel is installed but $PYTHON cannot import it"
fi
log "nibabel $("$PYTHON" -c 'import nibabel; print(nibabel.__version__)')"

log "compiling core and its test classes"
mvn -B -ntp -q test-compile -pl core || die "cannot compile core"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" "$IT_DIR/nifti_nibabel_check.py" "$work" \
  java -cp "$REPO_ROOT/core/target/classes:$REPO_ROOT/core/target/test-classes" \
  org.nlspark.core.io.nifti.NibabelBridge
