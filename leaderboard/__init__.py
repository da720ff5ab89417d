"""groundcover's leaderboard: ranked tables built from scored result files.

:mod:`leaderboard.build` loads ``results/`` and ranks like with like;
:mod:`leaderboard.snapshot` renders the tables for the terminal, CSV/JSON, Markdown (the
comment on a submission pull request) and a static HTML page.  The Gradio Space in
``hf_space/`` reads the same tables.
"""

from leaderboard.build import FAMILIES, Leaderboard, build_leaderboard

__all__ = ["FAMILIES", "Leaderboard", "build_leaderboard"]
