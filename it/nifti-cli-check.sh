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

use_nibabel

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PYTHON" "$IT_DIR/nifti_cli_check.py" "$work" "$REPO_ROOT/bin/nlspark"
