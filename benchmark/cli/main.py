"""Entry point of the ``benchmark`` console script: each module under :mod:`benchmark.cli`
registers its subcommand; bad input is printed without a traceback and exits 2.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import pkgutil
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from benchmark.cli import COMMANDS, Parser
from benchmark.core.errors import IncompleteResults, InputError
from benchmark.core.version import __version__

if TYPE_CHECKING:
    from benchmark.families.command_context import CommandContext


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line; given ``argv``, only the platform command it names gets its full parser
    (imports, the families' flags) and the others are listed by their help line, so a help
    screen waits for nothing else; the families' commands are registered when it names none."""
    parser = Parser(
        prog="benchmark",
        description="groundcover: evaluate whether long-form answers are grounded and cover what matters.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "examples:\n"
            "  benchmark tasks\n"
            "  benchmark evaluate --model groundcover-offline --tasks webtrack-2009-2012\n"
            "  benchmark score --outputs outputs/webtrack-2009-2012.jsonl --tasks webtrack-2009-2012\n"
            "  benchmark leaderboard\n"
        ),
    )
    parser.add_argument("--version", action="version", version=f"groundcover {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=Parser)
    named = None if argv is None else next((a for a in argv if a in ("-h", "--help") or a[:1] != "-"), None)
    for name, line in COMMANDS.items():
        if argv is None or name == named:
            importlib.import_module(f"benchmark.cli.{name.replace('-', '_')}").register(sub)
        else:
            sub.add_parser(name, help=line)
    if named not in COMMANDS:
        from benchmark.families import REGISTRY, module

        context = family_command_context()
        for family in REGISTRY.values():  # a family owns its sub-commands (``benchmark exam …``)
            if (commands := module(family, "commands")) is not None:
                commands.register(sub, context)
    return parser


def lazy(name: str) -> Callable[..., Any]:
    """The callable ``module:name``, imported on its first call: the library's pieces import
    pandas, scipy and scikit-learn, seconds a help screen need not wait."""
    return lambda *args, **kwargs: pkgutil.resolve_name(name)(*args, **kwargs)


def family_command_context() -> CommandContext:
    """What a family's sub-commands get from above the families (so they import nothing from above)."""
    from benchmark.cli import add_command, require
    from benchmark.cli.settings import add_arguments, from_args
    from benchmark.families.command_context import CommandContext

    return CommandContext(
        add_command=add_command,
        require=require,
        run_options=lazy("benchmark.cli.common:run_options"),
        systems_table=lazy("benchmark.cli.meta_eval:systems_table"),
        add_settings=add_arguments,
        settings_from_args=from_args,
        save_figures=lazy("benchmark.api.run:save_figures"),
        scoring_job=lazy("benchmark.scoring.run:Job"),
        score_jobs=lazy("benchmark.scoring.run:score_jobs"),
        judged_passage=lazy("benchmark.metaeval.answerability:JudgedPassage"),
        answerability_vs_relevance=lazy("benchmark.metaeval.answerability:answerability_vs_relevance"),
    )


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # a file name with undecodable bytes (kept by Python as surrogates) prints as escapes
        # under any PYTHONIOENCODING instead of ending the command with UnicodeEncodeError
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except InputError as exc:
        print(f"error: {exc} (see --help)", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except IncompleteResults as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_status
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        print(
            f"error: no space left on the device ({exc.filename or 'writing'}): free some space, or point "
            "--results-dir / --output-dir / GROUNDCOVER_HOME elsewhere; completed items are checkpointed, "
            "re-run the same command to resume",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print(
            "interrupted; completed items are checkpointed, re-run the same command to resume",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
