#!/usr/bin/env bash
# Every design cite in the repository names a section of docs/DESIGN.md. Cites are "§N" or "§N.M"
# (as in "DESIGN §8" or "ports §3.11 of DESIGN.md") and "DESIGN section N" in the tracked text
# files (code comments, scripts, configuration, docs); a section is a heading of docs/DESIGN.md
# that starts with its number ("## 8. Data plane", "### 3.11 Streaming percentile interval").
# Fails listing every file:line whose cite has no section, so a renumbered or dropped section
# cannot leave the code pointing nowhere.
# Usage: it/design-cites.sh     prints "design-cites: N cites, 0 without a section"
set -euo pipefail
# shellcheck source=it/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"
export LC_ALL=C

design=docs/DESIGN.md
[[ -f $design ]] || die "cannot check the design cites: $design is missing"

# The section numbers: "## 8. Title" gives 8, "### 3.11 Title" gives 3.11.
sections=$(grep -E '^#{2,4} [0-9]+(\.[0-9]+)*\.? ' "$design" | awk '{ sub(/\.$/, "", $2); print $2 }')
[[ -n $sections ]] || die "cannot find a numbered section heading in $design"

# The files to read: what git tracks (a clean clone), else every file outside build folders.
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git ls-files -z > "${TMPDIR:-/tmp}/design-cites.$$"
else
  find . -type f -not -path './.git/*' -not -path '*/target/*' -not -path './it/.cache/*' \
    -not -path './it/work/*' -print0 | sed -z 's|^\./||' > "${TMPDIR:-/tmp}/design-cites.$$"
fi
files="${TMPDIR:-/tmp}/design-cites.$$"
trap 'rm -f "$files"' EXIT

# file:line:cite for every cite; -I skips binary files.
cites=$(xargs -0 grep -InoE '§ ?[0-9]+(\.[0-9]+)*|DESIGN(\.md)? section [0-9]+(\.[0-9]+)*' < "$files" \
  2> /dev/null || true)
[[ -n $cites ]] || die "cannot find a single design cite: the pattern or the file list is wrong"

count=0
missing=0
while IFS= read -r hit; do
  number=$(sed -E 's/.*(§ ?|section )([0-9]+(\.[0-9]+)*)$/\2/' <<< "$hit")
  count=$((count + 1))
  if ! grep -qxF "$number" <<< "$sections"; then
    log "cite without a section in $design: ${hit%:*} cites $number"
    missing=$((missing + 1))
  fi
done <<< "$cites"
echo "design-cites: $count cites, $missing without a section"
[[ $missing -eq 0 ]]
