"""How long the command line takes to say what it can do: ``benchmark --help`` and
``benchmark validate --help``, each in a fresh interpreter, several times.

The time is what a user waits before reading help, and a floor under every command; the
module counts say why (how much of the project and its libraries a help screen imports).
The registry of metric families is asked, not run on import, so a help screen loads the
families' declarations only, never a pipeline.

    .venv/bin/python benchmarks/cli_startup.py [--runs 7] [--tree DIR ...]

Each ``--tree`` is a checkout of groundcover to time (default: the one this script is in),
run with this interpreter's packages, so two commits are compared on one machine in one
call: ``git worktree add /tmp/before <commit>`` and pass both. Prints one row per tree and
command: the median, fastest and slowest wall time of ``--runs`` fresh processes, and the
modules the command loaded (the project's own ``benchmark.*`` modules and all modules).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tabulate import tabulate

COMMANDS = (["--help"], ["validate", "--help"])

#: the command line of the checkout in argv[1], then what it loaded, as JSON on stderr's last
#: line; the editable install's finder is set aside so the checkout's own code runs
RUN = """
import json, sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv.pop(1))
from benchmark.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
mods = list(sys.modules)
print(json.dumps({"project": sum(m == "benchmark" or m.startswith("benchmark.") for m in mods),
                  "all": len(mods), "file": sys.modules["benchmark"].__file__}), file=sys.stderr)
"""


def run(tree: Path, argv: list[str]) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(tree), *argv], check=True, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    loaded = dict(json.loads(done.stderr.strip().splitlines()[-1]))
    assert str(loaded["file"]).startswith(str(tree)), f"ran {loaded['file']}, not {tree}"
    return seconds, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per command (default: 7)")
    parser.add_argument(
        "--tree", action="append", type=Path, help="a checkout to time (repeat; default: this one)"
    )
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree or [Path(__file__).resolve().parents[1]]]
    rows = []
    for argv in COMMANDS:
        for tree in trees:
            run(tree, argv)  # warm the disk cache
        times: dict[Path, list[float]] = {tree: [] for tree in trees}
        loaded: dict[Path, dict[str, object]] = {}
        for _ in range(args.runs):  # interleaved, so a change in the machine's load hits every tree
            for tree in trees:
                seconds, loaded[tree] = run(tree, argv)
                times[tree].append(seconds)
        for tree in trees:
            t = times[tree]
            rows.append(
                [str(tree), "benchmark " + " ".join(argv), f"{statistics.median(t):.2f}", f"{min(t):.2f}",
                 f"{max(t):.2f}", loaded[tree]["project"], loaded[tree]["all"]]
            )  # fmt: skip
    print(
        tabulate(
            rows,
            headers=["checkout", "command", "median s", "min s", "max s", "benchmark.* modules", "all modules"],
            colalign=("left", "left", "right", "right", "right", "right", "right"),
        )
    )
    print(f"\n{args.runs} fresh processes per command and checkout, interleaved; Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
