"""TREC RAG run files (2024, 2025, and hltcoe's RAGTIME / DRAGUN / BioGen schema), read as
they are and checked as the track's own checker (castorini/ragnarok ``rag24_validation.py`` /
``rag25_validation.py``) checks them, with its severity: its errors are an
:class:`~benchmark.core.errors.InputError` naming file, line and field, its warnings land in
:attr:`TrecRagRun.warnings`.  Answers over 400 words are truncated as the checker does
unless ``truncate=False``; what this reader lets through and the checker refuses is refused
again under ``strict=True``.  Every departure is listed in ``docs/conformance.md``.

Each line becomes one answer per (run, topic): its sentences with their citations as the run
split them (:class:`~benchmark.answers.citations.CitedSentence`), its references the evidence.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmark.answers.citations import CitedSentence
from benchmark.core.errors import InputError, Problem, rel
from benchmark.core.untrusted import JSONDataError, Pairs, bad_paths, load_json, read_text

#: an MS MARCO v2.1 segment id, as the track's checkers match it
MARCO_SEGMENT = re.compile(r"^msmarco_v2\.1_doc_\d+_\d+#\d+_\d+$")
WORD_LIMIT = 400
REFERENCE_LIMIT = {2024: 20, 2025: 100}
TASK_YEARS = {"trec-rag24": 2024, "trec-rag25": 2025}
RUN_TYPES = ("manual", "automatic")
#: the fields of a 2024 line: on ``trec-rag24`` a line holding them all is read in the 2024
#: layout, whatever else it holds
FIELDS_2024 = ("run_id", "topic_id", "topic", "references", "response_length", "answer")
#: line ends as the track's checkers (Python's text files) split a file: not U+2028 and friends
LINE_END = re.compile(r"\r\n|\r|\n")
FORMATS = {
    "trec-rag24": "TREC RAG 2024 (run_id, topic_id, topic, references, response_length, answer)",
    "trec-rag25": "TREC RAG 2025 (metadata {team_id, run_id, narrative_id}, references, answer)",
    "hltcoe": "RAGTIME / DRAGUN / BioGen (hltcoe rag-run-validator schema: metadata, responses[], references)",
}


def words(text: str) -> int:
    """An answer sentence's length as the track counts it: NFKC-normalised, whitespace-split."""
    return len(unicodedata.normalize("NFKC", text.strip()).split())


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
    #: the answer's length as the track counts it, before any truncation
    length: int = 0
    #: words and sentences dropped to fit the 400-word limit (0 when none)
    words_cut: int = 0
    sentences_cut: int = 0
    layout: str = "trec-rag24"

    @property
    def answer(self) -> str:
        """The sentences' texts joined by a space, as nuggetizer joins them (no citation markers)."""
        return " ".join(s.text for s in self.sentences if s.text)


@dataclass
class TrecRagRun:
    run_id: str
    team_id: str | None
    path: str
    layout: str = "trec-rag24"
    topics: dict[str, RunTopic] = field(default_factory=dict)
    #: what the checker warns about (and the departures this reader lets through)
    warnings: list[Problem] = field(default_factory=list)
    truncated: bool = True

    @property
    def depth(self) -> int:
        """The most references any topic was given."""
        return max((len(t.references) for t in self.topics.values()), default=0)

    @property
    def empty(self) -> list[str]:
        """Topics whose answer has no sentence (scored as an answer that says nothing)."""
        return [q for q, t in self.topics.items() if not t.sentences]

    def facts(self) -> dict[str, Any]:
        """What the result files record about the run file."""
        cut = [t for t in self.topics.values() if t.words_cut]
        over = [t for t in self.topics.values() if t.length > WORD_LIMIT]
        return {
            "run_file": self.path,
            "run_id": self.run_id,
            "team_id": self.team_id,
            "layout": self.layout,
            "word_limit": WORD_LIMIT,
            "truncated": self.truncated,
            "answers_over_limit": len(over),
            "answers_truncated": len(cut),
            "words_cut": sum(t.words_cut for t in cut),
            "empty_answers": self.empty,
            # every warning, up to 200 (a run of 300 topics may carry a few per line)
            "warnings": [str(w) for w in self.warnings[:200]]
            + ([f"… and {len(self.warnings) - 200} more"] if len(self.warnings) > 200 else []),
        }


@dataclass
class _Line:
    """What one line says, whatever its layout."""

    layout: str
    run_id: Any
    team_id: Any
    topic_key: str
    topic_id: Any
    topic_text: Any
    answer_key: str
    answer: Any


def _layout(row: dict[str, Any], year: int | None = None) -> _Line | str:
    """The line's fields by layout, or a message saying why it has none."""
    meta = row.get("metadata")
    if meta is None or (year == 2024 and all(k in row for k in FIELDS_2024)):
        return _Line(
            "trec-rag24",
            row.get("run_id"),
            None,
            "topic_id",
            row.get("topic_id"),
            row.get("topic"),
            "answer",
            row.get("answer"),
        )
    if not isinstance(meta, dict):
        return "metadata must be an object"
    if "responses" in row and "answer" not in row:
        key = "request_id" if "request_id" in meta and "topic_id" not in meta else "topic_id"
        return _Line(
            "hltcoe",
            meta.get("run_id"),
            meta.get("team_id"),
            "metadata." + key,
            meta.get(key),
            None,
            "responses",
            row.get("responses"),
        )
    return _Line(
        "trec-rag25",
        meta.get("run_id"),
        meta.get("team_id"),
        "metadata.narrative_id",
        meta.get("narrative_id"),
        meta.get("narrative"),
        "answer",
        row.get("answer", []),
    )


class _Checker:
    """One file's lines checked under one year's rules (``year=None``: the format only)."""

    def __init__(
        self,
        where: str,
        year: int | None,
        topics: Mapping[str, str] | None,
        truncate: bool,
        strict: bool,
    ) -> None:
        self.where, self.year, self.topics = where, year, topics
        self.truncate, self.strict = truncate, strict
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []
        self.citation_kind: tuple[type, int] | None = None  # 2025: int or str, and the first line
        self.unnamed = False  # a line's run id named no run (said once)

    def error(self, message: str, line: int | None, fld: str | None = None) -> None:
        self.errors.append(Problem(self.where, message, line, fld))

    def warn(self, message: str, line: int | None, fld: str | None = None) -> None:
        self.warnings.append(Problem(self.where, message, line, fld))

    def say(self, error: bool, message: str, line: int | None, fld: str | None = None) -> None:
        (self.error if error else self.warn)(message, line, fld)

    def lenient(self, message: str, line: int | None, fld: str | None = None) -> None:
        """A departure from the checker: a warning here, an error under ``strict``."""
        if self.strict:
            self.error(message + " (an error under --trec-rag-strict)", line, fld)
        else:
            self.warn(message, line, fld)

    # -- one line -------------------------------------------------------------------------

    def line(self, row: dict[str, Any], n: int) -> RunTopic | None:
        before = len(self.errors)
        got = _layout(row, self.year)
        if isinstance(got, str):
            self.error(got, n, "metadata")
            return None
        if not self._layout_fits(got, n):
            return None
        self._required(row, got, n)
        if len(self.errors) > before:
            return None
        run_id, topic_id = self._run_id(got, n), got.topic_id
        if isinstance(topic_id, bool) or not isinstance(topic_id, str | int) or not str(topic_id).strip():
            self.error("the topic's id is missing", n, got.topic_key)
        if self.year == 2024 and not isinstance(topic_id, str):
            # the 2024 checker looks the id up as text: a number is an unknown topic there
            self.error(f"must be a string (the topic file's id), not {topic_id!r}", n, got.topic_key)
        if len(self.errors) > before:
            return None
        written, topic_id = str(topic_id), str(topic_id).strip()
        if self.topics is not None and topic_id not in self.topics:
            message = f"unknown topic {topic_id}: not one of the {len(self.topics)} official topics"
            self.error(message, n, got.topic_key)
            return None
        if written != topic_id and self.year is not None:
            self.lenient(
                f"the topic id {written!r} has whitespace around it: read as {topic_id!r} (the "
                f"{self.year} checker looks it up as written and finds no such topic)",
                n,
                got.topic_key,
            )
        self._topic(got, topic_id, n)
        refs = self._references(row.get("references"), n)
        sents = self._answer(got, refs, n)
        if len(self.errors) > before or refs is None or sents is None:
            return None
        if got.layout == "trec-rag24" and self.year is not None:
            self._response_length(row.get("response_length"), sents, n)
        length = sum(words(s.text) for s in sents)
        team_id = _name(got.team_id)
        topic = RunTopic(
            run_id,
            team_id.strip() if team_id else None,
            topic_id,
            got.topic_text if isinstance(got.topic_text, str) else None,
            refs,
            sents,
            n,
            length,
            layout=got.layout,
        )
        if self.year is not None and length > WORD_LIMIT:
            self._too_long(topic, n)
        if not topic.sentences:
            message = f"the answer is empty: scored as an answer that says nothing (topic {topic_id})"
            self.warn(message, n, got.answer_key)
        return topic

    def _run_id(self, got: _Line, n: int) -> str:
        """The run's id as the line writes it; one that names no run (the checkers take any
        value) files the run under the file's name, said once."""
        name = _name(got.run_id)
        if name is not None:
            return name
        fallback = Path(self.where).name.split(".")[0] or "run"
        if not self.unnamed:
            self.unnamed = True
            self.warn(
                f"the run id is {got.run_id!r}, which names no run: the run is filed under the file's "
                f"name, {fallback!r}",
                n,
                "run_id" if got.layout == "trec-rag24" else "metadata.run_id",
            )
        return fallback

    def _layout_fits(self, got: _Line, n: int) -> bool:
        if self.year is None:
            return True
        want = f"trec-rag{self.year % 100}"
        if got.layout == want:
            return True
        self.error(
            f"this line is in the {FORMATS[got.layout]} format; the TREC RAG {self.year} checker "
            f"takes {FORMATS[want]}",
            n,
            "run_id" if self.year == 2024 else "metadata",
        )
        return False

    def _required(self, row: dict[str, Any], got: _Line, n: int) -> None:
        if got.layout == "trec-rag24":
            # the 2024 checker refuses a line missing any of these (and stops at the first)
            for key in FIELDS_2024:
                if key not in row and (
                    self.year is not None or key in ("run_id", "topic_id", "references", "answer")
                ):
                    self.error(f'the line has no "{key}" field', n, key)
                    return
        elif got.layout == "trec-rag25":
            meta = row["metadata"]
            for key in ("team_id", "run_id", "narrative_id"):
                if key not in meta and (self.year is not None or key != "team_id"):
                    self.error("metadata is missing a required key", n, "metadata." + key)
            if "references" not in row:
                self.error("references must be a list", n, "references")
            if self.year is not None:
                if "type" in meta and meta["type"] not in RUN_TYPES:
                    self.error(f"must be one of {RUN_TYPES}, not {meta['type']!r}", n, "metadata.type")
                for key in ("type", "narrative", "prompt"):
                    if key not in meta:
                        self.warn(f"the optional field metadata.{key} is missing", n, "metadata." + key)
                if "answer" not in row:
                    self.warn("the line has no answer: read as an empty answer", n, "answer")
        else:  # hltcoe's schema
            meta = row["metadata"]
            for key in ("team_id", "run_id"):
                if not isinstance(meta.get(key), str):
                    self.error("must be a string (rag-run-validator schema)", n, "metadata." + key)
            if ("topic_id" in meta) == ("request_id" in meta):
                message = "needs exactly one of topic_id and request_id (rag-run-validator schema)"
                self.error(message, n, "metadata.topic_id")
            if not isinstance(row.get("references"), list):
                self.error("must be a list of document ids (rag-run-validator schema)", n, "references")

    def _topic(self, got: _Line, topic_id: str, n: int) -> None:
        if self.topics is None:
            return
        official = self.topics.get(topic_id)
        if official is None:
            return  # an unknown topic is the caller's error (it names the task)
        text_field = "topic" if got.layout == "trec-rag24" else "metadata.narrative"
        text = got.topic_text
        if text is None and got.layout != "trec-rag24":
            return  # 2025: not compared (its absence is warned about above)
        if isinstance(text, str) and text != official and text.strip() == official and self.year == 2024:
            self.lenient(
                "whitespace around the topic text: compared without it (the 2024 checker compares it as "
                "written: 'Topic text does not match official topic')",
                n,
                text_field,
            )
            return
        if not isinstance(text, str) or text.strip() != official:  # 2025: its checker does not compare
            message = f"the topic text differs from the official text of topic {topic_id}"
            self.say(self.year == 2024, message, n, text_field)

    def _references(self, refs: Any, n: int) -> list[str] | None:
        if isinstance(refs, list) and self.year == 2025:
            # the 2025 checker warns about a reference that is not a string, as about any id
            # not in the MS MARCO v2.1 form: kept as its JSON text, which cites nothing
            refs = [r if isinstance(r, str) else json.dumps(r) for r in refs]
        if not isinstance(refs, list) or not all(isinstance(r, str) and (r or self.year) for r in refs):
            self.error("must be a list of segment ids", n, "references")
            return None
        if self.year is not None:
            bad = [r for r in refs if not MARCO_SEGMENT.match(r)]
            for r in bad[:5]:
                message = f"{r!r} is not an MS MARCO v2.1 segment id (msmarco_v2.1_doc_<n>_<n>#<n>_<n>)"
                self.say(self.year == 2024, message, n, "references")
            if len(bad) > 5:
                message = f"{len(bad) - 5} more references are not MS MARCO v2.1 segment ids"
                self.say(self.year == 2024, message, n, "references")
        if len(set(refs)) != len(refs):
            repeated = sorted({r for r in refs if refs.count(r) > 1})
            message = f"a segment id is repeated in references: {', '.join(repeated[:3])}"
            # the 2025 checker passes it (its --fix-citations removes them)
            self.say(self.year != 2025, message, n, "references")
        if self.year is not None:
            limit = REFERENCE_LIMIT[self.year]
            if len(refs) > limit:
                message = f"{len(refs)} references, more than the {self.year} limit of {limit}"
                if self.year == 2024:
                    self.error(message, n, "references")
                else:  # the 2025 checker's --fix-citations trims them; so does this reader
                    message += f": trimmed to the first {limit}, citations of the others dropped"
                    self.lenient(message, n, "references")
        return list(refs)

    def _citations(self, raw: Any, refs: list[str], n: int, fld: str) -> CitedSentence | None:
        raw = self._listed(raw, n, fld, "no citations")
        if not isinstance(raw, list):
            self.error("must be a list of reference indices or segment ids", n, fld)
            return None
        if self.year == 2024:  # the checker compares indices as numbers: 1.0 is index 1
            raw = [int(c) if isinstance(c, float) and c.is_integer() else c for c in raw]
        kinds = {type(c) for c in raw}
        if any(isinstance(c, bool) or not isinstance(c, int | str) for c in raw) or len(kinds) > 1:
            self.error("citations must all be indices into references or all segment ids", n, fld)
            return None
        if self.year == 2024 and str in kinds:
            self.error("citations must be 0-based indices into references (the 2024 format)", n, fld)
            return None
        if self.year == 2025 and kinds:
            kind = kinds.pop()
            if self.citation_kind is None:
                self.citation_kind = (kind, n)
            elif self.citation_kind[0] is not kind:
                first = "indices (format 1)" if self.citation_kind[0] is int else "segment ids (format 2)"
                self.error(
                    f"the file cites by {first} from line {self.citation_kind[1]}: the 2025 checker "
                    "takes one format per file",
                    n,
                    fld,
                )
                return None
        index = {r: i for i, r in enumerate(refs)}
        valid: list[int] = []
        invalid: list[str] = []
        repeated = False
        for c in raw:
            if isinstance(c, int):
                ok = 0 <= c < len(refs)
                value: int | str = c if ok else str(c)
                message = f"citation {c} is out of range: references has {len(refs)}"
            else:
                ok = c in index
                value = index[c] if ok else c
                message = f"cites {c!r}, which is not in references"
            if not ok:
                if self.year is not None:
                    self.error(message, n, fld)
                elif value not in invalid:
                    self.warn(message + " (counted as an invalid citation)", n, fld)
                    invalid.append(str(value))
                continue
            if value in valid:
                repeated = True
                continue
            valid.append(value)  # type: ignore[arg-type]
        if repeated:
            self.warn("a sentence cites the same reference twice: counted once", n, fld)
        return CitedSentence("", tuple(valid), tuple(invalid))

    def _listed(self, value: Any, n: int, fld: str, reading: str) -> Any:
        """2024: an empty string or object where a list belongs is read as the empty list, as
        the checker iterates over it, with a warning."""
        if self.year == 2024 and isinstance(value, str | dict) and not value:
            self.warn(f"{value!r} where a list belongs: read as {reading}", n, fld)
            return []
        return value

    def _answer(self, got: _Line, refs: list[str] | None, n: int) -> list[CitedSentence] | None:
        answer, key = self._listed(got.answer, n, got.answer_key, "an empty answer"), got.answer_key
        if not isinstance(answer, list):
            self.error("must be a list of {text, citations} sentences", n, key)
            return None
        out: list[CitedSentence] = []
        for k, s in enumerate(answer):
            fld = f"{key}[{k}]"
            if not isinstance(s, dict):
                self.error("must be an object {text, citations}", n, fld)
                continue
            if not isinstance(s.get("text"), str):
                self.error("must be a string", n, fld + ".text")
                continue
            if "citations" not in s:
                # the 2024 checker fails on it (a KeyError it reports as an error), the 2025 one errs
                self.error("the sentence has no citations key (give [] for none)", n, fld + ".citations")
                continue
            raw = s["citations"]
            if got.layout == "hltcoe":
                raw = self._hltcoe_citations(raw, n, fld + ".citations")
                if raw is None:
                    continue
            cites = self._citations(raw, refs or [], n, fld + ".citations")
            if cites is not None:
                out.append(CitedSentence(s["text"].strip(), cites.citations, cites.invalid))
        if self.year == 2025 and refs is not None and len(refs) > REFERENCE_LIMIT[2025] and not self.strict:
            out = self._trim_citations(refs, out)
        return out

    def _hltcoe_citations(self, raw: Any, n: int, fld: str) -> list[str] | None:
        if isinstance(raw, dict):
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw.values()):
                message = "a {docid: score} citation needs numeric scores (rag-run-validator schema)"
                self.error(message, n, fld)
                return None
            # highest score first, as the citations are ranked; ties in the file's order
            return [d for d, _ in sorted(raw.items(), key=lambda kv: -kv[1])]
        if isinstance(raw, list) and all(isinstance(c, str) for c in raw):
            return list(raw)
        message = "must be a list of document ids or a {docid: score} object (rag-run-validator schema)"
        self.error(message, n, fld)
        return None

    @staticmethod
    def _trim_citations(refs: list[str], sents: list[CitedSentence]) -> list[CitedSentence]:
        """2025: the first 100 references and their citations, as ``--fix-citations`` keeps them."""
        limit = REFERENCE_LIMIT[2025]
        del refs[limit:]
        return [CitedSentence(s.text, tuple(c for c in s.citations if c < limit), s.invalid) for s in sents]

    def _response_length(self, reported: Any, sents: list[CitedSentence], n: int) -> None:
        if isinstance(reported, bool):  # the checker compares it as 0 or 1
            self.warn(f"{reported!r} is not a word count", n, "response_length")
            return
        if not isinstance(reported, int | float):  # the checker stops on it (a TypeError)
            self.error(f"must be a number (the answer's word count), not {reported!r}", n, "response_length")
            return
        actual = sum(words(s.text) for s in sents)
        if reported > WORD_LIMIT:
            self.warn(f"the reported response_length {reported} is over {WORD_LIMIT}", n, "response_length")
        if reported != actual:
            self.warn(
                f"the reported response_length {reported} is not the answer's length {actual} "
                "(NFKC-normalised, whitespace-split words)",
                n,
                "response_length",
            )

    def _too_long(self, topic: RunTopic, n: int) -> None:
        if not self.truncate:
            self.warn(
                f"the answer is {topic.length} words, over the track's {WORD_LIMIT}-word limit: scored "
                "whole (--no-truncate; the track truncates it)",
                n,
                "answer",
            )
            return
        length, kept = topic.length, list(topic.sentences)
        while length > WORD_LIMIT and kept:
            length -= words(kept.pop().text)
        topic.words_cut = topic.length - length
        topic.sentences_cut = len(topic.sentences) - len(kept)
        topic.sentences = kept
        self.warn(
            f"the answer is {topic.length} words, over the track's {WORD_LIMIT}-word limit: truncated "
            f"as the track's checker does, {topic.sentences_cut} sentence(s) and {topic.words_cut} words "
            f"cut from the end ({length} words scored; --no-truncate scores it whole)",
            n,
            "answer",
        )


def _name(value: Any) -> str | None:
    """A run or team id as the line writes it (a number as its JSON text); ``None`` for a
    value that names nothing."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return json.dumps(value)
    return None


def _json_line(raw: str) -> tuple[Any, list[str]]:
    """A line read as :func:`~benchmark.core.untrusted.load_json` reads it, except that a key
    written twice is read as the track's checkers read it, the last value kept; the paths
    of such keys beside the value."""
    try:
        return load_json(raw), []
    except JSONDataError as refused:
        try:
            pairs = json.loads(raw, object_pairs_hook=Pairs)
        except ValueError:
            raise refused from None
        repeated = list(bad_paths(pairs))
        if not repeated:
            raise
    value = _last_kept(pairs)
    load_json(json.dumps(value))  # NaN, a number too large: refused as load_json refuses them
    return value, repeated


def _last_kept(value: Any) -> Any:
    if isinstance(value, Pairs):
        return {k: _last_kept(v) for k, v in value}
    if isinstance(value, list):
        return [_last_kept(v) for v in value]
    return value


def _text(p: Path, where: str) -> tuple[str, list[Problem]]:
    """The file's text (gunzipped where the bytes say so), and notes of what the track's
    checkers would refuse in it: compressed bytes, a byte-order mark."""
    raw = p.read_bytes()
    notes = []
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError.at(where, f"not a readable gzip file ({exc})", field="--trec-rag-run") from None
        why = (
            "the file is gzip-compressed: read uncompressed (the track's checkers read plain UTF-8 text "
            "and refuse it)"
        )
        notes.append(Problem(where, why, 1))
    text = read_text(p, field="--trec-rag-run", data=raw)
    if text.startswith("\ufeff"):
        text = text[1:]
        why = (
            "the file starts with a UTF-8 byte-order mark: read without it (the track's checkers "
            "refuse the first line: 'Unexpected UTF-8 BOM')"
        )
        notes.append(Problem(where, why, 1))
    return text, notes


def read_trec_rag_run(
    path: str | Path,
    *,
    year: int | None = None,
    topics: Mapping[str, str] | None = None,
    truncate: bool = True,
    strict: bool = False,
) -> list[TrecRagRun]:
    """The runs in a TREC RAG run file (usually one), each with its topics.

    ``year`` (2024 or 2025) applies that year's checker rules; ``topics`` (topic id ->
    official text) checks the topic ids and texts."""
    p = Path(path)
    where = rel(p)
    if not p.is_file():
        raise InputError.at(where, "TREC RAG run file does not exist", field="--trec-rag-run")
    text, file_notes = _text(p, where)
    check = _Checker(where, year, topics, truncate, strict)
    for note in file_notes:
        check.lenient(note.message, note.line)
    said_of_the_file = len(check.warnings)  # every run's
    runs: dict[str, TrecRagRun] = {}
    line_run: dict[int, str] = {}
    shared: list[Problem] = []  # a second run id: every run's
    # str.splitlines would also split on U+2028 and friends inside a JSON string
    lines = LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the file's last line end
    for n, raw in enumerate(lines, start=1):
        if not raw.strip():
            if year == 2024:  # the 2025 checker skips it
                check.lenient("a blank line: skipped (the 2024 checker refuses it: a JSON error)", n)
            continue
        try:
            row, repeated = _json_line(raw)
        except ValueError as exc:
            check.error(str(exc), n, getattr(exc, "field", None))
            continue
        for key in repeated:
            check.warn(
                "a key written twice in one object: its last value is read, as the track's checkers (Python's "
                "json) read it",
                n,
                key,
            )
        if not isinstance(row, dict):
            check.error("each line must be a JSON object", n)
            continue
        topic = check.line(row, n)
        if topic is None:
            continue
        if topic.run_id not in runs:
            if runs:
                first = next(iter(runs.values()))
                # the 2024 checker: 'Run tag inconsistent' (an error); the track takes one run per file
                before = len(check.warnings)
                check.lenient(
                    f"a second run id {topic.run_id!r} (the first, {first.run_id!r}, is on line "
                    f"{min(t.line for t in first.topics.values())}): the track takes one run per file; "
                    "each run is scored as its own entry",
                    n,
                    "run_id" if topic.layout == "trec-rag24" else "metadata.run_id",
                )
                shared += check.warnings[before:]
            runs[topic.run_id] = TrecRagRun(
                topic.run_id, topic.team_id, where, topic.layout, truncated=truncate
            )
        run = runs[topic.run_id]
        if topic.topic_id in run.topics:
            first_at = run.topics[topic.topic_id].line
            check.error(
                f"topic {topic.topic_id} repeated in run {topic.run_id} (first on line {first_at}): one "
                "answer per topic and run",
                n,
            )
            continue
        run.topics[topic.topic_id] = topic
        line_run[n] = topic.run_id
    if check.errors:
        raise InputError(check.errors)
    if not runs:
        raise InputError.at(where, "the run file has no answers")
    # the file's bytes, and lines that hold no answer (blank ones): every run's
    lines_said = check.warnings[said_of_the_file:]
    file_level = check.warnings[:said_of_the_file] + [w for w in lines_said if (w.line or 0) not in line_run]
    for run in runs.values():
        own = [w for w in lines_said if line_run.get(w.line or 0) == run.run_id]
        run.warnings = [*file_level, *shared, *[w for w in own if w not in shared]]
        if topics is not None:
            missing = [q for q in topics if q not in run.topics]
            if missing:
                shown = ", ".join(missing[:5]) + (", …" if len(missing) > 5 else "")
                # the 2024 checker warns once per topic: 'No response returned for topic …'
                why = f"run {run.run_id} answers {len(run.topics)} of the {len(topics)} topics"
                run.warnings.append(Problem(where, f"{why}; no answer for {len(missing)} ({shown})"))
    return list(runs.values())
