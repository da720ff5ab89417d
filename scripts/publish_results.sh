#!/usr/bin/env bash
# Publish scored results to main and rebuild the leaderboard snapshot from them.
#
#   NEW_RESULTS=/tmp/scored/new-results BASE=<push's before> SHA=<push's after> \
#     bash scripts/publish_results.sh
#
# Run by the `publish` job of .github/workflows/submission.yml in a checkout of main (the
# tests run this very script against a bare repository).  Inputs, all from the environment:
#   NEW_RESULTS  the result files the score job wrote, laid out as under leaderboard/results/
#                (may be missing: a push that only deletes a submission scores nothing)
#   BASE, SHA    the push's before and after commits: a submission folder present in BASE
#                and gone in SHA was deleted, and its results leave the board
#   PYTHON       the interpreter with groundcover installed (default .venv/bin/python)
#   REMOTE, BRANCH            where to publish (default origin, main)
#   PUBLISH_ATTEMPTS, PUBLISH_BACKOFF_S   retries when main moves under us (default 10, 3)
#
# Why not commit results and snapshot, then `git pull --rebase`: two merges both rewrite
# leaderboard/snapshot/*, so the rebase conflicts on every attempt and the later merge's
# results are never published.  Instead each attempt starts from the newest main, adds
# the results (files of one submission; a re-score replaces its own files), removes the
# deleted submissions' results, regenerates the snapshot from the results now on main with
# `benchmark leaderboard`, commits once and pushes without force.  A push refused because
# another publish got there first starts over from the main that publish left: nothing
# ever has to be merged, and the snapshot always describes exactly the results beside it.
#
# The work is inside one function, read in full before it runs: each attempt resets the
# checkout this script lives in, and bash would otherwise read on from the new file.

publish() {
  set -euo pipefail
  local results=leaderboard/results snapshot=leaderboard/snapshot
  local python=${PYTHON:-.venv/bin/python} remote=${REMOTE:-origin} branch=${BRANCH:-main}
  local attempts=${PUBLISH_ATTEMPTS:-10} backoff=${PUBLISH_BACKOFF_S:-3}
  local new=${NEW_RESULTS:-} sha=${SHA:-} base=${BASE:-}
  local work
  work=$(mktemp -d)
  # shellcheck disable=SC2064  # expand now: $work is local
  trap "rm -rf -- '$work'" EXIT

  git config user.name "groundcover-bot"
  git config user.email "bot@groundcover.invalid"

  # The scored files: plain files and folders only (a link would be committed as a link).
  if [[ -n "$new" && -d "$new" ]]; then
    if [[ -n "$(find "$new" ! -type f ! -type d -print -quit)" ]]; then
      echo "::error::$new holds something other than files and folders; not publishing"
      return 1
    fi
  else
    new=""
  fi

  # Deleted submission folders -> "<folder><TAB><model folder><TAB><setting>" of their
  # results, read from the model.yaml they had in BASE (reviewed and merged data).  Every
  # revision of that setting goes: a folder is one (org, name, setting), so they were all
  # its results.
  : > "$work/removed.tsv"
  if [[ -n "$base" && -n "$sha" ]] && git cat-file -e "$base^{commit}" 2>/dev/null \
    && git cat-file -e "$sha^{commit}" 2>/dev/null; then
    git diff --name-only -z "$base" "$sha" -- submissions/ | while IFS= read -r -d '' path; do
      printf '%s\0' "$(printf '%s' "$path" | cut -d/ -f1-2)"
    done | sort -zu > "$work/changed.bin"
    while IFS= read -r -d '' folder; do
      git cat-file -e "$sha:$folder" 2>/dev/null && continue        # still there
      git cat-file -e "$base:$folder/model.yaml" 2>/dev/null || continue
      git show "$base:$folder/model.yaml" > "$work/card.yaml"
      printf '%s\t' "$folder" >> "$work/removed.tsv"
      if ! "$python" -c '
import sys, yaml
from benchmark.board.submissions import ModelCard
from benchmark.core.results import model_dir_name, path_segment
card = ModelCard.model_validate(yaml.safe_load(open(sys.argv[1], encoding="utf-8")))
print(path_segment(model_dir_name(card.model_id)) + "\t" + path_segment(card.setting))
' "$work/card.yaml" >> "$work/removed.tsv"; then
        echo "::warning::$folder was deleted but its model.yaml does not load; its results stay"
        printf '\t\n' >> "$work/removed.tsv"
      fi
    done < "$work/changed.bin"
  elif [[ -n "$base$sha" ]]; then
    echo "::warning::BASE or SHA is not in this clone; deleted submissions are not looked for"
  fi

  local attempt
  for ((attempt = 1; attempt <= attempts; attempt++)); do
    git fetch --quiet "$remote" "$branch"
    git reset --quiet --hard FETCH_HEAD
    git clean -fdq -- "$results" "$snapshot"
    mkdir -p "$results"
    if [[ -n "$new" ]]; then
      cp -R -- "$new"/. "$results"/
    fi
    local folder model setting dir
    while IFS=$'\t' read -r folder model setting; do
      [[ -n "$model" && -n "$setting" ]] || continue
      # a later merge may have added the folder again (and published its new results)
      git cat-file -e "HEAD:$folder/model.yaml" 2>/dev/null && continue
      for dir in "$results/$model"/*/"$setting"; do
        [[ -d "$dir" ]] || continue
        echo "publish: removing $dir (its submission was deleted)"
        rm -rf -- "$dir"
      done
    done < "$work/removed.tsv"
    git add -A -- "$results"
    if git diff --cached --quiet -- "$results"; then
      echo "publish: the results on $branch are already these; nothing to publish"
      return 0
    fi
    rm -rf -- "$snapshot"
    "$python" -m benchmark leaderboard --results-dir "$results" --submissions-dir submissions \
      --out "$snapshot" > "$work/leaderboard.log"
    git add -A -- "$snapshot"
    git commit --quiet -m "results: score submissions ${sha:-(local)}"
    if git push --quiet "$remote" "HEAD:$branch"; then
      echo "publish: published on attempt $attempt"
      return 0
    fi
    echo "publish: $branch moved during attempt $attempt; starting again from it"
    sleep $((attempt * backoff))
  done
  echo "::error::could not publish the results after $attempts attempts"
  return 1
}

publish
exit
