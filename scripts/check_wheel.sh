#!/usr/bin/env bash
# Build the wheel, install it with scripts/setup.sh into a fresh venv in an empty
# directory, and use it there as a user who never cloned the repository would:
# list the tasks, export one for lm-eval, and evaluate one query end to end.
# CI runs this after the tests (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
.venv/bin/python -m pip wheel . --no-deps -q --disable-pip-version-check -w "$WORK/dist" 2>&1 | grep -v '^WARNING: Location' || true
WHEEL=$(ls "$WORK"/dist/groundcover-*.whl)
.venv/bin/python - "$WHEEL" <<'PY'
import re, sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
stray = [n for n in names if not re.match(r"(benchmark/|groundcover-[^/]*\.dist-info/)", n)]
tasks = sorted({n.split("/")[2] for n in names if n.startswith("benchmark/task_data/") and n.endswith("/task.yaml")})
print(f"[wheel] {len(names)} files; tasks inside: {tasks}")
sys.exit(f"[wheel] installs outside benchmark/: {stray}" if stray else 0 if tasks else "[wheel] carries no tasks")
PY
GROUNDCOVER_VENV="$WORK/venv" GROUNDCOVER_PACKAGE="$WHEEL" bash scripts/setup.sh
mkdir "$WORK/empty"
cd "$WORK/empty"
export GROUNDCOVER_HOME="$WORK/home"
"$WORK/venv/bin/benchmark" tasks list | tee tasks.txt
grep -q webtrack-2009-2012 tasks.txt
"$WORK/venv/bin/benchmark" tasks export-lm-eval --tasks webtrack-2009-2012 --out lm_eval_tasks | tail -n 3
find lm_eval_tasks -name '*.yaml' | grep -q .
"$WORK/venv/bin/benchmark" evaluate --model groundcover-offline --tasks webtrack-2009-2012 --limit 1 | tail -n 15
find results -name 'webtrack-2009-2012.icat.json' | grep -q .
echo "[wheel] ok: the installed wheel lists and evaluates its tasks outside the checkout"
