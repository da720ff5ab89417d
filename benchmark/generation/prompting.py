"""What the model under evaluation is shown: one user turn per query, exactly what the
exported lm-eval task sends, checked for held-out data (EXAM's questions, say) before it is sent.
"""

from __future__ import annotations

from benchmark.core.errors import InputError
from benchmark.generation.rag import RAGContext
from benchmark.tasks import Task

Messages = list[dict[str, str]]


def build_messages(
    task: Task, query: str, query_id: str | None = None, rag: RAGContext | None = None
) -> Messages:
    """The card's instruction and the query (with RAG, the numbered passages between them:
    :func:`benchmark.generation.rag.rag_prompt`) as one user turn."""
    if rag is not None and query_id is not None:
        messages = [{"role": "user", "content": rag.prompt(task.card.instruction, query_id, query)}]
    else:
        messages = [{"role": "user", "content": f"{task.card.instruction}\n\n{query}"}]
    check_held_out(task, messages, query_id)
    return messages


_HELD_OUT: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}


def held_out_texts(task: Task) -> dict[str, tuple[str, str]]:
    """Normalised text -> (table, row) of everything ``task`` holds out from the model under
    evaluation: every column a metric family registered as held out (EXAM's questions)."""
    key = (task.id, task.data_fingerprint)
    if key not in _HELD_OUT:
        from benchmark.tasks.tables import held_out_columns

        held: dict[str, tuple[str, str]] = {}
        for table, column in held_out_columns(task.card.data.tables, task.card.metrics).items():
            rows = task.table(table)
            for n, text in enumerate(rows[column], start=1):
                held[" ".join(str(text).lower().split())] = (table, str(n))
        _HELD_OUT[key] = held
    return _HELD_OUT[key]


def check_held_out(task: Task, messages: Messages, query_id: str | None = None) -> None:
    """Held-out data stays held out (EXAM tests whether a system finds the information without
    seeing the exam): a prompt that contains a held-out text stops generation, the row named."""
    held = held_out_texts(task)
    if not held:
        return
    for m in messages:
        text = " ".join(str(m.get("content", "")).lower().split())
        for hidden, (table, row) in held.items():
            if hidden in text:
                raise InputError.at(
                    task.where(table),
                    f"the generation prompt for query {query_id or '?'} contains held-out text from table "
                    f"{table}, row {row} ({hidden[:60]!r}): it must never be shown to the evaluated model",
                    field=table,
                )
