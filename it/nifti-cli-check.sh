#!/usr/bin/env bash
# The command line on a study real nibabel wrote (DESIGN §8): 3-D float32 subjects in a list
# file, a 4-D int16 file with scl_slope, a directory and a mask; nlspark one-sample and
# bootstrap run on them and on the same masked data as an .npy (written by numpy in nilearn's
# voxel order), and nibabel reads the output maps back: same values to float32, the mask's
# affine and codes, 0 (statistics) or 1 (p-values) outside the mask. Installs Debian's
# python3-nibabel when it is missing; never skips. Builds the jars with bin/nlspark (no install).
# Usage: it/nifti-cli-check.sh     prints "nifti-cli: N passed, 0 failed"
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

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

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" "$IT_DIR/nifti_cli_check.py" "$work" "$REPO_ROOT/bin/nlspark"
