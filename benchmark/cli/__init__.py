"""The ``benchmark`` command line: one module per subcommand, thin over the library."""

from __future__ import annotations

import argparse


def add_command(
    sub: argparse._SubParsersAction, name: str, *, help: str, description: str, examples: list[str]
) -> argparse.ArgumentParser:
    """A subcommand parser whose ``--help`` ends with worked examples, kept verbatim."""
    return sub.add_parser(
        name,
        help=help,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n" + "\n".join(f"  {line}" for line in examples),
    )
