#!/usr/bin/env bash
# The scheduled health check of the hosted board (.github/workflows/health.yml): can the
# Space and the release its pin names be read (scripts/hosted_board.py health)?  When not,
# open one issue saying what failed — or comment on the one still open — and fail the run.
#   GH_TOKEN, REPO   the GitHub CLI's token and the repository (org/name)
#   PYTHON           the interpreter with groundcover installed (default .venv/bin/python)
set -uo pipefail
python=${PYTHON:-.venv/bin/python}
title="Hosted board health check failed"
if "$python" scripts/hosted_board.py health --report health.md; then
  exit 0
fi
[[ -s health.md ]] || echo "The health check could not run: see the workflow run's log." > health.md
existing=$(gh issue list --repo "$REPO" --state open --search "\"$title\" in:title" --json number --jq '.[0].number // empty')
if [[ "$existing" =~ ^[0-9]+$ ]]; then
  gh issue comment "$existing" --repo "$REPO" --body-file health.md
else
  gh issue create --repo "$REPO" --title "$title" --body-file health.md
fi
exit 1
