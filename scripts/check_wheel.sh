#!/usr/bin/env bash
# Build the wheel and install it as the README's "Installing without the checkout" recipe says,
# line by line, into a fresh venv in an empty directory (the wheel stands in for the Git URL;
# CI reaches no host but the package index, so torch's --index-url is dropped: pip takes the
# CPU build from local disk). Then use it there as a user who never cloned the repository
# would: list the tasks, export one for lm-eval, evaluate one query, rank the run with
# `benchmark leaderboard` (./results by default outside a checkout) and serve the Space.
# CI runs this after the tests (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
WORK=$(mktemp -d)
SERVER=""
trap '[[ -n "$SERVER" ]] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
# setuptools reuses ./build/lib between builds and never drops files moved away since (a
# prompt moved into its family's folder would ship twice): build from a clean state
rm -rf build
.venv/bin/python -m pip wheel . --no-deps -q --disable-pip-version-check -w "$WORK/dist" 2>&1 | { grep -v '^WARNING: Location' || true; }
WHEEL=$(ls "$WORK"/dist/groundcover-*.whl)
.venv/bin/python - "$WHEEL" <<'PY'
import re, sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
stray = [n for n in names if not re.match(r"(benchmark/|groundcover-[^/]*\.dist-info/)", n)]
tasks = sorted({n.split("/")[2] for n in names if n.startswith("benchmark/task_data/") and n.endswith("/task.yaml")})
print(f"[wheel] {len(names)} files; tasks inside: {tasks}")
sys.exit(f"[wheel] installs outside benchmark/: {stray}" if stray else 0 if tasks else "[wheel] carries no tasks")
PY

# the README's recipe, as written, with the wheel for the Git URL
python3 -m venv "$WORK/venv"
export PATH="$WORK/venv/bin:$PATH" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CONSTRAINT="$ROOT/constraints.txt"
RECIPE=$(awk '/^## Installing without the checkout/{f=1} f&&/^```bash/{g=1;next} g&&/^```/{exit} g' README.md)
[[ -n "$RECIPE" ]] || { echo "[wheel] no install recipe found in README.md"; exit 1; }
mkdir "$WORK/empty"
cd "$WORK/empty"
while IFS= read -r line; do
  line=${line%%#*}
  [[ -z "${line// /}" ]] && continue
  line=${line//"git+https://github.com/groundcover-bench/groundcover"/"file://$WHEEL"}
  line=${line//"--index-url https://download.pytorch.org/whl/cpu"/}
  echo "[recipe] $line"
  bash -c "set -euo pipefail; $line" 2>&1 | { grep -v '^WARNING: Location' || true; } | tail -n 20
done <<< "$RECIPE"
unset PIP_CONSTRAINT

export GROUNDCOVER_HOME="$WORK/home"
benchmark tasks list | tee tasks.txt
grep -q webtrack-2009-2012 tasks.txt
benchmark tasks export-lm-eval --tasks webtrack-2009-2012 --out lm_eval_tasks | tail -n 3
find lm_eval_tasks -name '*.yaml' | grep -q .
benchmark evaluate --model groundcover-offline --tasks webtrack-2009-2012 --limit 1 | tail -n 15
find results -name 'webtrack-2009-2012.icat.json' | grep -q .
benchmark leaderboard | tee leaderboard.txt | tail -n 5
grep -q "ranking the results under results/" leaderboard.txt
find snapshot -name 'icat.csv' | grep -q .
[[ ! -e leaderboard ]] || { echo "[wheel] leaderboard wrote into ./leaderboard outside a checkout"; exit 1; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
benchmark space serve --port "$PORT" > space.log 2>&1 &
SERVER=$!
for _ in $(seq 1 240); do  # wait for the server to answer, not for a fixed time (240 polls at most)
  if python3 -c "import sys, urllib.request; open('page.html', 'wb').write(urllib.request.urlopen(sys.argv[1], timeout=5).read())" "http://127.0.0.1:$PORT/" 2>/dev/null; then break; fi
  kill -0 "$SERVER" 2>/dev/null || { cat space.log; echo "[wheel] space serve exited"; exit 1; }
  sleep 0.5
done
grep -qi "gradio" page.html || { tail -n 30 space.log; echo "[wheel] the Space did not answer"; exit 1; }
echo "[wheel] ok: the README's install recipe, then tasks, evaluate, leaderboard and space serve outside the checkout"
