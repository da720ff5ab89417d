"""Where an entry's name on a board links to: its model page, else its submission.

A card's first Hub link, else its first link, else its submission folder; without a card,
the Hub only for a Hub id answered by a Hub backend, never a guessed link.  Links are data:
whoever draws them escapes them (:func:`benchmark.space.table.model_cell`).
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from benchmark.board.submissions import ModelCard
from benchmark.core.results import TaskResult

#: the project's repository (pyproject's Homepage): submissions live under ``submissions/``
REPOSITORY = "https://github.com/groundcover-bench/groundcover"
HUB = "https://huggingface.co"
HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
#: backends whose model ids are Hub repositories
HUB_BACKENDS = ("hf", "vllm")


def model_link(result: TaskResult, card: ModelCard | None) -> str | None:
    """The page an entry's name opens, or ``None``."""
    if card is not None:
        links = [str(u) for u in card.links if urlparse(str(u)).scheme in ("http", "https")]
        hub = [u for u in links if urlparse(u).hostname in ("huggingface.co", "www.huggingface.co")]
        if hub or links:
            return (hub or links)[0]
        return f"{REPOSITORY}/tree/main/submissions/{card.folder_name}"
    backend = (result.model.backend or "").split(" ")[0]
    if backend in HUB_BACKENDS and HUB_ID.fullmatch(result.model.id):
        return f"{HUB}/{result.model.id}"
    return None
