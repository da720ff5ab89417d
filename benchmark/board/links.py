"""Where an entry's name on a board links to: its model page, else its submission.

A model card's links are validated URLs (``http``/``https`` only); the first one on the
Hugging Face Hub is the model page, else the card's first link.  A card without links
points at its submission folder in the project's repository, where the card and the
answers are.  An entry without a card links to the Hub only when its id is a Hub id and
its answers came from a Hub model; otherwise it has no link (never a guessed one).
Links are data: whoever draws them escapes them (:func:`benchmark.space.table.model_cell`).
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
