"""The Space's words: the page's introduction, About, FAQ, How to submit and Citation, and
what every column of every table means (the header tooltips and the lists under the
tables).  All of it is the project's own text, never a submission's."""

from __future__ import annotations

import html

from benchmark.board.render import RANKS_EXPLAINED
from benchmark.core.stats import ALPHA
from benchmark.families import REGISTRY, MetricFamily
from benchmark.models.profiles import DEFAULT_PROFILE
from benchmark.space.table import COUNT_COLUMNS, SIZE, column_order, headline

#: what each column that is not a score means (scores: the family's own descriptions)
COLUMN_HELP = {
    "rank": "1 + the number of models significantly better on the same queries (paired permutation "
    "test, Holm-corrected, α = 0.05); equal ranks: not significantly different. 'ref': a reference "
    "entry (baseline, oracle or ceiling check), never ranked among the models.",
    "model": "organisation/name, a link to its model page (or its submission when it has none); click "
    "elsewhere in the row to open its model card, per-query scores and traces.",
    "n": "queries the mean is over (those with a score).",
    "failed": "queries whose ranked score a judge failed on: left out of the mean, never counted as 0.",
    "copies": "judge replies that copied their prompt's worked example instead of judging (counted in failed).",
    "setting": "closed-book, retrieval-augmented as the figures write it (RAG retriever, +subq(how): core "
    "sub-questions, k passages; hover for its whole wording), or a reference entry's declared setting.",
    "revision": "the model's commit or tag.",
    SIZE: "parameters in billions; blank when unknown or not a model.",
    "open weights": "yes/no from the model card; — without a card.",
    "queries": "queries on the board.",
    "shared mean": "mean over the queries every entry on the board has a score for (failing on hard "
    "queries cannot raise it).",
    "task": "task and version.",
    "judge profile": "the pinned judges that scored the answers; only one profile's results are ranked together.",
    "board": "what must be equal for scores to be comparable (family, task, queries, judges, settings).",
}

PAIRWISE_HELP = (
    "Each pair of ranked models on the board shown: the mean difference of the ranked score on the "
    "queries both have a score for, the two-sided paired permutation test's p-value, and the "
    f"Holm-adjusted p-value that the lower model's rank was tested against (α = {ALPHA}). A model "
    "ranks below another only when that adjusted p is under α: two models with different means can "
    "share a rank, and a model with the higher mean over its own queries can rank lower when the "
    "difference on shared queries points the other way or a lower score is better (as for DecompScore's "
    "scores where the column says so). 'detectable': the smallest difference this pair's test detects "
    "with 80% power, from its own per-query differences (the line above the board gives the board's); "
    "a pair below it that shares a rank cannot be told apart on these queries, which is not the same "
    "as being equal."
)


def column_help(family: MetricFamily) -> list[tuple[str, str]]:
    """(column, what it means) for every column a family's board can show, in board order."""
    head = headline(family)
    items = {"rank": COLUMN_HELP["rank"], "model": COLUMN_HELP["model"], head.label: head.description}
    items[f"{head.label} CI"] = "95% bootstrap confidence interval over queries."
    items |= {k: COLUMN_HELP[k] for k in COUNT_COLUMNS} | {c.label: c.description for c in family.columns}
    items |= {k: v for k, v in COLUMN_HELP.items() if k in column_order(family) and k not in items}
    ci = "95% bootstrap confidence interval of {} over queries."
    return list(
        (items | {f"{c.label} CI": ci.format(c.label) for c in family.columns if c is not head}).items()
    )


#: the pairwise view's and the per-query table's own columns
PAIRWISE_COLUMN_HELP = {
    "rank A": "A's rank on the board.",
    "A": "the better-ranked model of the pair, named as in the figures (hover for its whole name).",
    "rank B": "B's rank on the board.",
    "B": "the other model of the pair.",
    "mean A − B": "mean difference of the ranked score on the queries both have a score for.",
    "detectable": "the smallest difference this pair's paired test detects with 80% power at the board's "
    "level (α over the model's comparisons), from the SD of its per-query differences; 'none': too few "
    "queries for any.",
    "< detectable": "yes when the observed difference is below what the test detects: a shared rank here "
    "means 'cannot tell apart', not 'equal'.",
    "shared queries": "queries both models have a score for: the test is over these.",
    "p": "two-sided paired permutation test's p-value of the difference.",
    "Holm p": "the p-value Holm-adjusted over the board's pairs; a rank counts it against α = 0.05.",
    "significant": "yes when the Holm p is under α and the difference favours A: A ranks above B for it.",
    "board": COLUMN_HELP["board"],
}
QUERY_COLUMN_HELP = {
    "query": "the query's id (click a row to open its trace).",
    "text": "the start of the query's text.",
    "failed": "yes when a judge failed on every score of this query (left out of the means).",
    "failures": "what failed, stage by stage.",
}


def header_help() -> dict[str, dict[str, str]]:
    """Each header's tooltip (:data:`benchmark.space.page.HEADER_JS`), by the table's element id."""
    out: dict[str, dict[str, str]] = {}
    scores: dict[str, str] = {}
    for fid, fam in REGISTRY.items():
        out[f"gc-table-{fid}"] = dict(column_help(fam))
        out[f"gc-pairs-{fid}"] = dict(PAIRWISE_COLUMN_HELP)
        for k, v in column_help(fam):
            scores.setdefault(k, v)
    out["gc-summary"] = dict(SCORES_COLUMN_HELP)
    out["gc-queries"] = {**{k: v for k, v in scores.items() if not k.endswith(" CI")}, **QUERY_COLUMN_HELP}
    out["gc-overall"] = dict(OVERALL_COLUMN_HELP)
    out["gc-compare"] = dict(COMPARE_COLUMN_HELP)
    return out


#: the Scores table of Model details: one row per score
SCORES_COLUMN_HELP = {
    "score": "the score (rank and setting first); each family's column help says what it means.",
    "value": "its mean over the queries with a score (three decimals), or the rank ('ref': a reference entry).",
    "95% CI": "95% bootstrap confidence interval over queries.",
    "n": COLUMN_HELP["n"],
    "failed": "queries this score's judge failed on: left out of the mean, never counted as 0.",
}
#: the Summary tab's table (its other columns are boards, named by family)
OVERALL_COLUMN_HELP = {
    "overall rank": "rank by mean rank among the models with a result on every board that applies to them.",
    "model": "the entry, named as in the figures (hover for its whole name).",
    "mean rank": "the mean of its ranks on the boards of its judge profile.",
    "boards": "boards it has a result on, of the boards that apply to it.",
}
#: the Compare tab's table
COMPARE_COLUMN_HELP = {
    "query": "the query's id (click a row for both traces).",
    "text": "the start of the query's text.",
    "A": "A's ranked score on this query.",
    "B": "B's ranked score on this query.",
    "A − B": "the difference on this query; rows sorted from A's largest lead to B's.",
}


def column_help_html(family: MetricFamily) -> str:
    """What each column means, as a collapsible list under the table (escaped text only)."""
    items = column_help(family)
    body = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in items)
    return (
        "<details class='gc-help'><summary>What each column means</summary>"
        f"<dl>{body}</dl><p>Any X CI column: the 95% interval of X.</p></details>"
    )


PICK_A_RESULT = "*Choose a result above to see its scores, each query's scores, and what the judges saw.*"

INTRO = """# groundcover leaderboard
Is what an answer says **grounded**, and does it **cover** what matters? Scores are computed by the project
from submitted answers with a pinned judge profile. Pick a judge profile under *Search and filters*:
results are only ranked against results on the same board."""

ABOUT = f"""## About

**groundcover** scores long-form and retrieval-augmented answers with metrics from the literature,
each a *metric family*: {", ".join(f"**{f.title}** ({html.escape(f.description)})" for f in REGISTRY.values())}.

* **Scores are computed by the project**, from data-only submissions, with a pinned judge profile;
  submitters never send scores. Every result records which judge models produced it.
* **Like with like.** A *board* is one metric family × task version × task data × knowledge corpus ×
  set of scored queries × judge profile × rank-relevant settings (such as ICAT's β). Only results on
  the same board are ranked together; the *board* column names it.
* **Ranks.** {RANKS_EXPLAINED}
* **Closed-book and retrieval-augmented runs** of one model are two entries (the *setting* column).
* **Missing is missing** (—), never zero; a query the scorer could not judge is counted under *failed*.
* **Copies** counts judge replies that reproduced their prompt's worked example instead of judging
  (after a retry with a repair turn, they are failures with their raw text kept, never ratings).
* **The offline judge profile** (`{DEFAULT_PROFILE}`) runs anywhere with no model hub; its judges are
  small stand-ins (see the project README), so its numbers tell systems apart on the bundled data but
  are not comparable with real-judge profiles, and are never ranked beside them.
"""

FAQ = f"""## Frequently asked questions

**How are ranks computed?** {RANKS_EXPLAINED} Open *Why these ranks: pairwise tests* under a board
to see, for every pair of models, the mean difference on the queries both have a score for, the
p-value, and the Holm-adjusted p-value the rank was tested against.

**Why do all models share rank 1?** Because the board cannot tell them apart, which is not the
same as their being equal. The line above each board says how large a difference in its ranked
score the paired test detects with 80% power on its queries (its *power*), and how many pairs
differ by less; each pair in *Why these ranks* says whether its own difference is below what
its test detects. With a dozen queries only large differences are detected; halving the
detectable difference takes about four times the queries.

**Why do two entries with different means share a rank, or a lower mean rank higher?** A rank
counts only the models *significantly* better on the same queries. With a dozen queries, a
difference of a few hundredths is usually within chance: the two share a rank. A mean is over the
queries an entry has a score for (*n*); the test is over the queries both entries share, so when
one entry failed on some queries, the two can point different ways. Where a lower score is better
(the column's description says so), the order is reversed.

**What are the intervals?** 95% bootstrap confidence intervals over queries. Overlapping
intervals do not decide a rank: the paired test does, as every entry answered the same queries.

**What is a judge card and its banner?** Each score is produced by judge models of a pinned
*judge profile*. The judge card reports how well the main score's judge agrees with public human
labels. A banner warns when that judge is at chance or below a simple baseline: read such a board
as a check that the pipeline runs, not as a ranking of quality.

**What do *failed* and *copies* mean?** *failed* counts queries whose ranked score a judge failed
on: they are left out of the mean (never counted as 0), and *n* says how many the mean is over. An
entry that failed on many more queries than the others is flagged, with its mean over the queries
every entry has (*shared mean*). *copies* counts judge replies that reproduced their prompt's worked
example instead of judging; they are among the failures.

**What are reference entries?** Baselines, oracles and ceiling checks, declared in their model card
(`kind`). They are shown after the models, marked (rank *ref*, their kind beside the name, a tinted
row under a rule), with the setting their card declares; they are never ranked among the models and
have no overall rank. For example `groundcover/bm25-extractive-top3` copies passages of the very
corpus the judges ground against: a ceiling check of the grounding stage, not a model.

**Can I share what I see?** The address bar holds the tab, its filters and, on *Model details*,
the result, query and trace page shown; copy it.
"""

HOW_TO_SUBMIT = """## How to submit

A submission is **data only**: your model's answers, never scores or code.

```bash
pip install groundcover            # or: bash scripts/setup.sh in a clone
benchmark evaluate --model hf --model-args pretrained=ORG/NAME --tasks webtrack-2009-2012 --no-score
#   retrieval-augmented: add --rag bm25 (the setting becomes part of the entry's name)
benchmark submit --outputs outputs/ORG__NAME --org ORG --name NAME --license apache-2.0 \\
    --parameters 1.5e9 --open-weights --contact you@example.org
benchmark validate submissions/ORG__NAME
```

Open a pull request that adds the folder under `submissions/`. The *submission* workflow validates it
(every problem is reported with file, line and field), scores it with the pinned judge profile, and
comments the ranked table; on merge the project's scores are published here.

Models served elsewhere work the same way: any model in lm-evaluation-harness's registry (`hf`, `vllm`,
`local-chat-completions` for an OpenAI-compatible server), or `lm_eval --log_samples` output of the
exported tasks (`benchmark tasks export-lm-eval`).
"""

GROUNDCOVER_CITATION = """@software{groundcover,
  title  = {groundcover: a benchmark and leaderboard for grounded, covering long-form answers},
  author = {groundcover developers},
  year   = {2026},
  url    = {https://github.com/groundcover-bench/groundcover}
}"""


def citation_text() -> str:
    parts = [
        "## Citation",
        "If you use the leaderboard, please cite groundcover and the papers of the metrics you report:",
    ]
    parts.append(f"```bibtex\n{GROUNDCOVER_CITATION}\n```")
    for fam in REGISTRY.values():
        if fam.citation:
            parts.append(f"**{fam.title}**\n\n```bibtex\n{fam.citation}\n```")
    return "\n\n".join(parts)
