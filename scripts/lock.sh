#!/usr/bin/env bash
# Refresh constraints.txt: set up a fresh dev venv with nothing pinned, then freeze it.
#
#   bash scripts/lock.sh            # writes constraints.txt; then run the suite and commit both
#
# Why: scripts/setup.sh installs with `-c constraints.txt`, so every machine (and CI) gets the
# same numpy/scipy/... and the published-results check compares like with like. New
# versions come in only through this script, on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
GROUNDCOVER_VENV="$WORK/venv" GROUNDCOVER_UNPINNED=1 bash scripts/setup.sh --dev
HEADER=$(sed -n '/^#/p;/^[^#]/q' constraints.txt)
{
  printf '%s\n' "$HEADER"
  "$WORK/venv/bin/python" -m pip freeze --all --disable-pip-version-check \
    | grep -v -e '^-e ' -e '^# ' -e '^groundcover==' | sed 's/^torch==\([0-9.]*\)+cpu$/torch==\1/'
} > constraints.txt.new
mv constraints.txt.new constraints.txt
echo "[lock] wrote constraints.txt ($(grep -vc '^#' constraints.txt) packages); run the suite, then commit it"
