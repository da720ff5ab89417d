"""Entry point of the ``benchmark`` console script: each module under :mod:`benchmark.cli`
registers its subcommand; bad input is printed without a traceback and exits 2.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchmark.cli import Parser
from benchmark.core.errors import IncompleteResults, InputError
from benchmark.core.version import __version__

if TYPE_CHECKING:
    from benchmark.api.commands import CommandContext

#: the platform's commands; each metric family adds its own
COMMANDS = (
    "tasks",
    "evaluate",
    "score",
    "judge_check",
    "judge_card",
    "meta_eval",
    "autojudge",
    "validate",
    "submit",
    "leaderboard",
    "space",
)


def build_parser() -> argparse.ArgumentParser:
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
    for name in COMMANDS:
        importlib.import_module(f"benchmark.cli.{name}").register(sub)
    from benchmark.families import REGISTRY, module

    context = family_command_context()
    for family in REGISTRY.values():  # a family owns its sub-commands (``benchmark exam …``)
        if (commands := module(family, "commands")) is not None:
            commands.register(sub, context)
    return parser


def family_command_context() -> CommandContext:
    """What a family's sub-commands get from above the families."""
    from benchmark.api.commands import family_command_context as build
    from benchmark.cli import add_command, require
    from benchmark.cli.common import run_options
    from benchmark.cli.meta_eval import systems_table
    from benchmark.cli.settings import add_arguments, from_args

    return build(
        add_command=add_command,
        require=require,
        run_options=run_options,
        systems_table=systems_table,
        add_settings=add_arguments,
        settings_from_args=from_args,
    )


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # a file name with undecodable bytes (kept by Python as surrogates) prints as escapes
        # under any PYTHONIOENCODING instead of ending the command with UnicodeEncodeError
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
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
    except (InputError, IncompleteResults) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_status if isinstance(exc, IncompleteResults) else 2
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
