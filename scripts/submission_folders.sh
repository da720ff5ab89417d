#!/usr/bin/env bash
# The submission folders a workflow run scores, one per line: "<path><TAB><git tree id>".
#
#   EVENT=pull_request BASE=<base sha> bash scripts/submission_folders.sh          # the PR's checkout
#   EVENT=push BASE=<before> bash scripts/submission_folders.sh                   # main after a merge
#   EVENT=workflow_dispatch PR=<number> SHA=<approved commit> bash scripts/submission_folders.sh
#
# Run by .github/workflows/submission.yml (tests/unit/test_workflows.py runs it on hostile
# names and hostile pull requests).  Inputs come from the environment only; OUT is the list
# (default folders.txt).  Every folder name must be [A-Za-z0-9._-]+ (not starting with a
# dot) before anything else happens, so a name never reaches a shell as code.
#
# A pull request (and an approved one) may change nothing outside submissions/: code changes
# go through a normal pull request.  A push to main was reviewed and merged, and may carry
# other changes with a submission; its folders are still scored.
#
# workflow_dispatch is a maintainer's approval of pull request PR at commit SHA: the code
# that runs is this checkout (main's); the pull request's head must still be SHA (a later
# push needs a new approval), and only its submissions/ files at SHA are taken — as data,
# regular files only (no links, no submodules, nothing executable), extracted under
# approved/ with `git archive`, never checked out and never run.
set -euo pipefail
out=${OUT:-folders.txt}
event=${EVENT:-pull_request}
head=HEAD

if [[ "$event" == workflow_dispatch ]]; then
  if [[ ! "${PR:-}" =~ ^[0-9]{1,10}$ || ! "${SHA:-}" =~ ^[0-9a-f]{40}$ ]]; then
    echo "::error::an approval names the pull request's number and the full 40-hex commit approved"
    exit 1
  fi
  git fetch --quiet --no-tags "${REMOTE:-origin}" "+refs/pull/$PR/head:refs/approval/head"
  if [[ "$(git rev-parse refs/approval/head)" != "$SHA" ]]; then
    echo "::error::pull request #$PR's head is now $(git rev-parse refs/approval/head), not the approved $SHA: approve its new head"
    exit 1
  fi
  head=$SHA
  BASE=$(git merge-base HEAD "$SHA")
fi

git diff --name-only -z "$BASE" "$head" -- submissions/ > changed.bin
: > folders.names
while IFS= read -r -d '' path; do
  folder=$(printf '%s' "$path" | cut -d/ -f1-2)
  name=${folder#submissions/}
  if [[ ! "$name" =~ ^[A-Za-z0-9._-]+$ || "$name" == .* ]]; then
    echo "::error::submission folder names may use only letters, digits, '.', '_' and '-'"
    exit 1
  fi
  grep -qxF -- "$name" folders.names || printf '%s\n' "$name" >> folders.names
done < changed.bin
if [[ "$event" != push ]] && git diff --name-only "$BASE" "$head" | grep -qv '^submissions/'; then
  echo "::error::submission pull requests may only touch submissions/"
  exit 1
fi

: > "$out"
while IFS= read -r name; do
  git cat-file -e "$head:submissions/$name" 2>/dev/null || continue # deleted: nothing to score
  tree=$(git rev-parse "$head:submissions/$name")
  path="submissions/$name"
  if [[ "$event" == workflow_dispatch ]]; then
    if git ls-tree -r "$head" -- "submissions/$name" | grep -qv '^100644 blob '; then
      echo "::error::submissions/$name at $SHA holds something other than plain files; not scored"
      exit 1
    fi
    mkdir -p approved
    git archive --format=tar "$head" -- "submissions/$name" | tar -x -C approved
    path="approved/submissions/$name"
  fi
  printf '%s\t%s\n' "$path" "$tree" >> "$out"
done < folders.names
rm -f changed.bin folders.names
echo "submission folders to score:"
cat "$out"
