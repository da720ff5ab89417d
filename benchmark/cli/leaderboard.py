"""``benchmark leaderboard``: ranked tables from scored result files."""

from __future__ import annotations

import argparse

from benchmark.cli import PUBLISHED_RESULTS, add_command, default_results_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "leaderboard",
        description=(
            "Rank every result under --results-dir. Only results on the same board (metric family, task "
            "version and data, corpus, scored queries, judge profile, rank-relevant settings such as β) are "
            "ranked together; a model's rank is 1 + the number of models significantly better on the same "
            "queries (paired permutation test, Holm-corrected); a missing result is shown as missing and a "
            "failed query as failed, never as zero."
        ),
        examples=[
            "benchmark leaderboard                       # the published board (leaderboard/results)",
            "benchmark leaderboard --results-dir results --out /tmp/mine   # your local runs",
            "benchmark leaderboard --markdown comment.md   # the table a submission PR gets",
        ],
    )
    p.add_argument(
        "--results-dir",
        help=f"result files to rank (default: the published ones in {PUBLISHED_RESULTS} inside a checkout, "
        "else ./results, where `benchmark evaluate` writes)",
    )
    p.add_argument("--submissions-dir", default="submissions", help="model cards (open weights, size)")
    p.add_argument(
        "--out",
        help="snapshot folder (CSV, JSON, MD, HTML; default: leaderboard/snapshot for the published results, "
        "else ./snapshot)",
    )
    p.add_argument("--markdown", help="also write the Markdown tables to this file")
    p.add_argument("--no-write", action="store_true", help="only print")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from benchmark.board.leaderboard import build_leaderboard
    from benchmark.board.render import print_leaderboard, to_markdown, write_snapshot
    from benchmark.core.errors import InputError, printable
    from benchmark.core.paths import check_writable, check_writable_file

    if args.results_dir is None:
        args.results_dir = default_results_dir()
        print(f"ranking the results under {args.results_dir}/ (--results-dir to choose another folder)")
    if args.out is None:
        args.out = "leaderboard/snapshot" if args.results_dir == PUBLISHED_RESULTS else "snapshot"
    if not Path(args.results_dir).is_dir():
        raise InputError.at(
            printable(args.results_dir),
            "no such folder of result files (outside a checkout the default is ./results, where "
            "`benchmark evaluate` writes)",
            field="--results-dir",
        )
    if not args.no_write:
        check_writable(args.out, "--out")
    if args.markdown:
        check_writable_file(args.markdown, "--markdown")
    lb = build_leaderboard(args.results_dir, args.submissions_dir)
    print_leaderboard(lb)
    if not args.no_write:
        written = write_snapshot(lb, args.out)
        print(f"wrote {len(written)} files to {args.out}")
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(lb), encoding="utf-8")
    return 0
