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

use_nibabel

log "compiling core and its test classes"
mvn -B -ntp -q test-compile -pl core || die "cannot compile core"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" "$IT_DIR/nifti_nibabel_check.py" "$work" \
  java -cp "$REPO_ROOT/core/target/classes:$REPO_ROOT/core/target/test-classes" \
  org.nlspark.core.io.nifti.NibabelBridge
