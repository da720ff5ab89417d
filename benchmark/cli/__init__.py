"""The ``benchmark`` command line: one module per subcommand, thin over the library."""

from __future__ import annotations

import argparse
import re
from typing import Any, NoReturn

from benchmark.core.errors import usage_error

# The project's own scores of merged submissions (relative to the repository root): what
# `benchmark leaderboard` and the Space rank by default. Local runs write to ./results,
# which git ignores, so evaluating a model never edits the published tree.
PUBLISHED_RESULTS = "leaderboard/results"

#: the platform's commands (module ``benchmark.cli.<name with _>``) and their line in
#: ``benchmark --help``; each metric family adds its own
COMMANDS = {
    "tasks": "list tasks or show a task card",
    "evaluate": "generate answers with a model and score them",
    "score": "score existing outputs (groundcover JSONL or lm-eval sample logs)",
    "judge-check": "do a family's scores fall as evidence or answers get worse? (ConQRet's robustness check)",
    "judge-card": "measure a judge profile's judges on public human-labelled sets; write its judge card",
    "meta-eval": "correlate a metric with human judgements, or two metrics' leaderboards",
    "autojudge": "judge a TREC AutoJudge task with a family, or put an AutoJudge leaderboard on a ranking card",
    "validate": "validate submission folders (schema, ids, limits, safety)",
    "submit": "build submissions/<org>__<model>/ from outputs of `benchmark evaluate`",
    "leaderboard": "print ranked tables and write CSV/JSON/Markdown/HTML snapshots",
    "space": "serve the Gradio leaderboard locally, or publish the Space",
}


def default_results_dir() -> str:
    """In a checkout, the published results; anywhere else, the user's own runs in
    ``./results``, where ``benchmark evaluate`` writes them."""
    from pathlib import Path

    return PUBLISHED_RESULTS if Path(PUBLISHED_RESULTS).is_dir() else "results"


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one-line :class:`InputError`s naming the flag (exit 2).

    Abbreviations are off: with them ``--out`` meant ``--outputs`` and any unique prefix of a
    flag was taken for it, so a typo, or another tool's flag pasted in, silently set one of ours.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        if m := re.match(r"argument ([^:]+): (.*)", message, flags=re.S):
            raise usage_error(m.group(2), m.group(1).split("/")[0])
        raise usage_error(message)


def add_command(
    sub: argparse._SubParsersAction,
    name: str,
    *,
    help: str | None = None,
    description: str,
    examples: list[str],
) -> argparse.ArgumentParser:
    """A subcommand parser whose ``--help`` ends with worked examples, kept verbatim (``help``:
    a family's command's line; the platform's is in :data:`COMMANDS`)."""
    return sub.add_parser(
        name,
        help=help or COMMANDS[name],
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n" + "\n".join(f"  {line}" for line in examples),
    )


def require(args: argparse.Namespace, command: str, *names: str) -> None:
    """The first of ``names`` a family command's action lacks is an error naming it."""
    if missing := [n for n in names if not getattr(args, n.replace("-", "_"))]:
        raise usage_error(f"`{command} {args.action}` needs --{missing[0]}", f"--{missing[0]}")
