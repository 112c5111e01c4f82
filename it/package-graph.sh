#!/usr/bin/env bash
# No cycle in the package graph of the production code: docs/package-graph.py reads the imports of
# every module's src/main and fails on a cycle between packages or between modules. It also says,
# without failing, when the graph drawn in docs/ARCHITECTURE.md is older than the code (redraw it
# with docs/package-graph.py --write docs/ARCHITECTURE.md).
# Usage: it/package-graph.sh     prints "package-graph: N packages, 0 package cycles, 0 module cycles"
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
command -v python3 > /dev/null || die "cannot draw the package graph: python3 is not installed"
python3 docs/package-graph.py --check docs/ARCHITECTURE.md
