"""TREC RAG run files: answers as the 2024 and 2025 RAG tracks take them, read as they are.

The track's guidelines (trec-rag.github.io, "TREC 2024 RAG Track Guidelines" and the 2025
ones) define one JSON object per line and topic:

* 2024: ``run_id``, ``topic_id``, ``topic``, ``references`` (the ranked segment ids the
  answer drew on), ``response_length``, and ``answer``: a list of ``{text, citations}``
  sentences whose ``citations`` are 0-based indices into ``references``;
* 2025: the same ``references`` and ``answer``, with the run and topic under
  ``metadata`` (``team_id``, ``run_id``, ``type``, ``narrative_id``, ``narrative``,
  ``prompt``); ``citations`` are indices (format 1) or segment ids (format 2).

Each line becomes one answer per (run, topic): its sentences with their citations kept
as the run split them (:class:`~benchmark.generation.rag.CitedSentence`), and the
references as the evidence it was given.  Every problem names the file, line and field;
nothing is dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import load_json, read_text
from benchmark.generation.rag import CitedSentence


@dataclass
class RunTopic:
    """One topic's answer in a run."""

    run_id: str
    team_id: str | None
    topic_id: str
    topic: str | None
    references: list[str]
    sentences: list[CitedSentence]
    line: int

    @property
    def answer(self) -> str:
        """The answer as one text, in groundcover's RAG form (``[n]`` markers, 1-based), so
        every other family reads it as it reads a groundcover RAG answer."""
        parts = []
        for s in self.sentences:
            marks = "".join(f"[{i + 1}]" for i in s.citations)
            parts.append(f"{s.text} {marks}".strip() if marks else s.text)
        return " ".join(parts)


@dataclass
class TrecRagRun:
    run_id: str
    team_id: str | None
    path: str
    topics: dict[str, RunTopic] = field(default_factory=dict)

    @property
    def depth(self) -> int:
        """The most references any topic was given."""
        return max((len(t.references) for t in self.topics.values()), default=0)


def _citations(
    raw: Any, references: list[str], where: str, line: int, fld: str, problems: list[Problem]
) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    if not isinstance(raw, list):
        problems.append(Problem(where, "must be a list of reference indices or segment ids", line, fld))
        return None
    index = {r: i for i, r in enumerate(references)}
    valid: list[int] = []
    invalid: list[str] = []
    for c in raw:
        if isinstance(c, bool) or not isinstance(c, int | str):
            problems.append(
                Problem(where, f"a citation must be an index or a segment id, not {c!r}", line, fld)
            )
            return None
        if isinstance(c, int):
            ok = 0 <= c < len(references)
            target, value = (valid, c) if ok else (invalid, str(c))
        else:
            ok = c in index
            target, value = (valid, index[c]) if ok else (invalid, c)
        if value not in target:
            target.append(value)  # type: ignore[arg-type]
    return tuple(valid), tuple(invalid)


def _topic(row: dict[str, Any], where: str, line: int, problems: list[Problem]) -> RunTopic | None:
    meta = row.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        problems.append(Problem(where, "must be an object", line, "metadata"))
        return None
    src = meta if isinstance(meta, dict) else row
    prefix = "metadata." if isinstance(meta, dict) else ""
    run_id = src.get("run_id")
    topic_key = "narrative_id" if "narrative_id" in src else "topic_id"
    topic_id = src.get(topic_key)
    before = len(problems)
    if not isinstance(run_id, str) or not run_id.strip():
        problems.append(Problem(where, "the run's id is missing", line, prefix + "run_id"))
    if isinstance(topic_id, bool) or not isinstance(topic_id, str | int) or not str(topic_id).strip():
        problems.append(Problem(where, "the topic's id is missing", line, prefix + topic_key))
    refs = row.get("references")
    if not isinstance(refs, list) or not all(isinstance(r, str) and r for r in refs):
        problems.append(Problem(where, "must be a list of segment ids", line, "references"))
        refs = None
    elif len(set(refs)) != len(refs):
        problems.append(Problem(where, "a segment id is repeated", line, "references"))
    answer = row.get("answer")
    if not isinstance(answer, list) or not answer:
        problems.append(
            Problem(where, "must be a non-empty list of {text, citations} sentences", line, "answer")
        )
        answer = None
    sents: list[CitedSentence] = []
    for k, s in enumerate(answer or []):
        fld = f"answer[{k}]"
        if not isinstance(s, dict) or not isinstance(s.get("text"), str):
            problems.append(Problem(where, "must be an object with a text", line, fld + ".text"))
            continue
        cites = _citations(s.get("citations", []), refs or [], where, line, fld + ".citations", problems)
        if cites is not None:
            sents.append(CitedSentence(s["text"].strip(), *cites))
    if len(problems) > before or refs is None:
        return None
    team = src.get("team_id")
    topic = src.get("narrative" if topic_key == "narrative_id" else "topic")
    return RunTopic(
        str(run_id),
        str(team) if isinstance(team, str) and team else None,
        str(topic_id),
        str(topic) if isinstance(topic, str) else None,
        list(refs),
        sents,
        line,
    )


def read_trec_rag_run(path: str | Path) -> list[TrecRagRun]:
    """The runs in a TREC RAG run file (usually one), each with its topics."""
    p = Path(path)
    where = rel(p)
    if not p.is_file():
        raise InputError(Problem(where, "TREC RAG run file does not exist", field="--trec-rag-run"))
    problems: list[Problem] = []
    runs: dict[str, TrecRagRun] = {}
    # strict: UTF-8 (the bad byte named), no NaN, no key written twice (JSON keeps the last,
    # silently), nesting bounded (a line of "[[[[…" is refused before the parser recurses)
    text = read_text(p, field="--trec-rag-run")
    for line, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            row = load_json(raw)
        except ValueError as exc:
            problems.append(Problem(where, str(exc), line, getattr(exc, "field", None)))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(where, "each line must be a JSON object", line))
            continue
        topic = _topic(row, where, line, problems)
        if topic is None:
            continue
        run = runs.setdefault(topic.run_id, TrecRagRun(topic.run_id, topic.team_id, where))
        if topic.topic_id in run.topics:
            first = run.topics[topic.topic_id].line
            problems.append(
                Problem(
                    where,
                    f"topic {topic.topic_id} repeated in run {topic.run_id} (first on line {first})",
                    line,
                )
            )
            continue
        run.topics[topic.topic_id] = topic
    if problems:
        raise InputError(problems)
    if not runs:
        raise InputError(Problem(where, "the run file has no answers"))
    return list(runs.values())
