"""The Hugging Face Space's entry point.

The app itself lives in the package (:mod:`benchmark.space.app`), so that ``benchmark space
serve`` works from an installed wheel as well as from a checkout; the Space installs
groundcover (``requirements.txt``) and runs this file, whose folder holds the results pin
(``results.yaml``).
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("GROUNDCOVER_SPACE_DIR", str(Path(__file__).resolve().parent))

from benchmark.space.app import build_app, launch

if __name__ == "__main__":
    launch(build_app())
