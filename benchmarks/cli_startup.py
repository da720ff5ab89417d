"""How long the command line takes to say what it can do: ``benchmark --help`` and
``benchmark validate --help``, each in a fresh interpreter, several times.

The time is what a user waits before reading help, and a floor under every command; the
module counts say why (how much of the project and its libraries a help screen imports).
The registry of metric families is asked, not run on import, so a help screen should load
the families' declarations only, never a pipeline, a model library or pandas.

    .venv/bin/python benchmarks/cli_startup.py [--runs 7]

Prints one row per command: the median, fastest and slowest wall time of ``--runs`` fresh
processes (the console script itself), and the modules the same command line loaded (the
project's own ``benchmark.*`` modules and all modules).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tabulate import tabulate

COMMANDS = (["--help"], ["validate", "--help"])

#: runs the command line in-process and reports what it loaded, as JSON on stderr's last line
COUNT = """
import json, sys
from benchmark.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
mods = list(sys.modules)
print(json.dumps({"project": sum(m == "benchmark" or m.startswith("benchmark.") for m in mods),
                  "all": len(mods)}), file=sys.stderr)
"""


def console_script() -> list[str]:
    """The ``benchmark`` command of this interpreter's environment (as a user runs it)."""
    exe = Path(sys.executable).with_name("benchmark")
    return [str(exe)] if exe.exists() else [shutil.which("benchmark") or "benchmark"]


def wall_times(argv: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*console_script(), *argv], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def loaded(argv: list[str]) -> dict[str, int]:
    done = subprocess.run([sys.executable, "-c", COUNT, *argv], check=True, capture_output=True, text=True)
    return dict(json.loads(done.stderr.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per command (default: 7)")
    args = parser.parse_args()
    rows = []
    for argv in COMMANDS:
        subprocess.run([*console_script(), *argv], check=True, capture_output=True)  # warm the disk cache
        times = wall_times(argv, args.runs)
        counts = loaded(argv)
        rows.append(
            [
                "benchmark " + " ".join(argv),
                f"{statistics.median(times):.2f}",
                f"{min(times):.2f}",
                f"{max(times):.2f}",
                counts["project"],
                counts["all"],
            ]
        )
    print(
        tabulate(
            rows,
            headers=["command", "median s", "min s", "max s", "benchmark.* modules", "all modules"],
            colalign=("left", "right", "right", "right", "right", "right"),
        )
    )
    print(f"\n{args.runs} fresh processes per command; {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
