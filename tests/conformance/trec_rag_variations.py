"""Every variation of a TREC RAG run file the differential suite reads, and how the track
checker's verdicts on them were recorded.

The variations start from clean 2024 and 2025 lines written from the track guidelines
(trec-rag.github.io, "TREC 2024 RAG Track Guidelines" v1.0 and "TREC 2025 RAG Track
Guidelines" v2.0; 2025 in both citation formats) and change one thing at a time:

* **field by field** (:data:`FIELDS`): each field, and the first element of each list, made
  absent, null, a bool, an int, a float, a string, empty, a list, an object, and — by its
  type — padded with whitespace, written as a number or a string, repeated or cut short
  (:func:`mutations`); the run's own fields on every line, the others on the first line;
* **the file** (:func:`file_variations`): blank and whitespace-only lines inside and at the
  end, a duplicated line, a key repeated within one object, unknown keys, line ends (CRLF,
  CR), encodings (a byte-order mark, UTF-16, Latin-1 bytes, NUL, U+2028 and U+0085 inside a
  string), gzip under either name, an empty file, lines that are not objects;
* **the limits**: references (20 / 21 in 2024, 100 / 101 in 2025), citations per sentence,
  ``response_length`` and answer length around 400 words (and 400 exactly after the fix
  truncates), repeated citations in one sentence, a full-size run with one topic missing.

The checker's verdicts come from running its own functions, never from restating its
rules: ``python tests/conformance/trec_rag_variations.py record DIR --ragnarok SRC --out
FILE`` runs ``check_rag24_run`` and ``validate_rag25_entries`` (castorini/ragnarok at
:data:`RAGNAROK_COMMIT`, its ``src`` folder given as ``SRC``; the two modules need only the
standard library, so any Python 3.11+ runs them) on the files that ``write DIR`` wrote, and
records each verdict with the checker's messages and the file's SHA-256 in
``tests/fixtures/trec_rag/checker_verdicts.json``.  The test regenerates the variations and
refuses a fixture recorded from other bytes (bump :data:`GENERATOR_VERSION` and record
again when the variations change).

This module's top level uses the standard library only; ``write`` needs groundcover (the
official topic texts come from its tasks).
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
import sys
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: bump when a variation's bytes change; the fixture records the version it was made with
GENERATOR_VERSION = 1
#: castorini/ragnarok, the commit whose checkers' verdicts the fixture holds
RAGNAROK_COMMIT = "7233fa742e47055865c7f85b1f9c8f0558bfdbbf"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "trec_rag" / "checker_verdicts.json"

Q24 = ("2024-105741", "2024-109837")
Q25 = ("100", "1001")
REFS = [f"msmarco_v2.1_doc_{i:02d}_{1000 + i}#{i}_{2000 + i}" for i in range(3)]
SENTENCES = [
    {"text": "A white blood cell count above 11,000 is called leukocytosis.", "citations": [0, 1]},
    {"text": "It usually signals an infection.", "citations": [2]},
]
LENGTH = 15  # the words of SENTENCES, as the track counts them
ABSENT = object()


def count(text: str) -> int:
    """A sentence's words as the guidelines count them: NFKC-normalised, whitespace-split."""
    return len(unicodedata.normalize("NFKC", text.strip()).split())


def segment(i: int) -> str:
    return f"msmarco_v2.1_doc_00_{i}#{i}_{i}"


@dataclass(frozen=True)
class Variation:
    """One run file: its id (``<year>[f<format>]/<field or file>/<change>``), the year whose
    checker reads it, the 2025 citation format it is checked under, its bytes and name, the
    topic set both readers are given (``base``: the two topics of the clean lines; ``all``:
    the task's), and the field it varies as groundcover names it (``None``: the file)."""

    id: str
    year: int
    data: bytes
    name: str = "run.jsonl"
    topics: str = "base"
    format: int = 1
    field: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


# -- clean lines ---------------------------------------------------------------------------------


def line24(texts: Mapping[str, str], q: str = Q24[0]) -> dict[str, Any]:
    return {
        "run_id": "gc-diff-24",
        "topic_id": q,
        "topic": texts[q],
        "references": list(REFS),
        "response_length": LENGTH,
        "answer": copy.deepcopy(SENTENCES),
    }


def line25(texts: Mapping[str, str], q: str = Q25[0], fmt: int = 1) -> dict[str, Any]:
    answer = copy.deepcopy(SENTENCES)
    if fmt == 2:
        for s in answer:
            s["citations"] = [REFS[c] for c in s["citations"]]
    return {
        "metadata": {
            "team_id": "gc",
            "run_id": "gc-diff-25",
            "type": "automatic",
            "narrative_id": q,
            "narrative": texts[q],
            "prompt": "Answer the narrative from the segments, citing them.",
        },
        "references": list(REFS),
        "answer": answer,
    }


def dumps(row: Any) -> str:
    return json.dumps(row, ensure_ascii=False)


def jsonl(rows: list[Any], end: str = "\n") -> bytes:
    return "".join((r if isinstance(r, str) else dumps(r)) + end for r in rows).encode("utf-8")


# -- field by field -----------------------------------------------------------------------------

Path_ = tuple[str | int, ...]

#: (path, every line?) per layout: the run's own fields vary on every line (the 2024 checker
#: compares each line's run_id with the first's), a topic's on the first line only
FIELDS: dict[str, list[tuple[Path_, bool]]] = {
    "2024": [
        (("run_id",), True),
        (("topic_id",), False),
        (("topic",), False),
        (("references",), False),
        (("references", 0), False),
        (("response_length",), False),
        (("answer",), False),
        (("answer", 0), False),
        (("answer", 0, "text"), False),
        (("answer", 0, "citations"), False),
        (("answer", 0, "citations", 0), False),
    ],
    "2025f1": [
        (("metadata",), False),
        (("metadata", "team_id"), True),
        (("metadata", "run_id"), True),
        (("metadata", "type"), False),
        (("metadata", "narrative_id"), False),
        (("metadata", "narrative"), False),
        (("metadata", "prompt"), False),
        (("references",), False),
        (("references", 0), False),
        (("answer",), False),
        (("answer", 0), False),
        (("answer", 0, "text"), False),
        (("answer", 0, "citations"), False),
        (("answer", 0, "citations", 0), False),
    ],
    "2025f2": [
        (("references", 0), False),
        (("answer", 0, "citations"), False),
        (("answer", 0, "citations", 0), False),
    ],
}


def dotted(path: Path_) -> str:
    """A path as groundcover names a field: ``answer[0].citations``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def mutations(value: Any) -> list[tuple[str, Any]]:
    """The values a field is given in turn: every JSON type, empty and absent, and, by the
    field's own type, whitespace, another spelling of the number, a repeat."""
    out: list[tuple[str, Any]] = [
        ("absent", ABSENT),
        ("null", None),
        ("true", True),
        ("int", 7),
        ("zero", 0),
        ("negative", -1),
        ("float", 7.5),
        ("fraction", 0.5),
        ("str", "x"),
        ("empty-str", ""),
        ("empty-list", []),
        ("empty-object", {}),
        ("in-a-list", [value]),
    ]
    if isinstance(value, str):
        out += [
            ("leading-space", " " + value),
            ("trailing-space", value + " "),
            ("padded", f" {value} "),
            ("trailing-newline", value + "\n"),
            ("uppercase", value.upper()),
        ]
        if value.isdigit():
            out += [("as-int", int(value)), ("as-float", float(value))]
    if isinstance(value, int) and not isinstance(value, bool):
        out += [("as-float", float(value)), ("as-str", str(value)), ("plus-one", value + 1)]
    if isinstance(value, list) and value:
        out += [("first-repeated", [value[0], *value]), ("first-only", value[:1]), ("reversed", value[::-1])]
    # a change that changes nothing is no variation
    return [(c, x) for c, x in out if x is ABSENT or not (x == value and type(x) is type(value))]


def _set(row: Any, path: Path_, value: Any) -> None:
    *head, last = path
    for p in head:
        row = row[p]
    if value is ABSENT:
        del row[last]
    else:
        row[last] = value


def _get(row: Any, path: Path_) -> Any:
    for p in path:
        row = row[p]
    return row


def field_variations(
    layout: str, clean: Callable[[str], dict[str, Any]], qs: tuple[str, str]
) -> Iterator[Variation]:
    year = int(layout[:4])
    fmt = 2 if layout.endswith("f2") else 1
    for path, every_line in FIELDS[layout]:
        for change, value in mutations(_get(clean(qs[0]), path)):
            rows = [clean(qs[0]), clean(qs[1])]
            for row in rows if every_line else rows[:1]:
                _set(row, path, value if value is ABSENT else copy.deepcopy(value))
            yield Variation(
                f"{layout}/{dotted(path)}/{change}", year, jsonl(rows), format=fmt, field=dotted(path)
            )


# -- the file as a whole ---------------------------------------------------------------------------


def _repeated_key(row: Mapping[str, Any], key: str, first: Any) -> str:
    """``row`` as one JSON object with ``key`` written twice: ``first``, then its own value."""
    pairs = [(key, first), *row.items()]
    return "{" + ", ".join(f"{dumps(k)}: {dumps(v)}" for k, v in pairs) + "}"


def file_variations(
    layout: str, clean: Callable[[str], dict[str, Any]], qs: tuple[str, str], every: list[str]
) -> Iterator[Variation]:
    """Blank lines, repeats, keys, line ends, encodings, limits and sizes; ``every`` is the
    task's full topic list (a full-size run)."""
    year = int(layout[:4])
    fmt = 2 if layout.endswith("f2") else 1
    a, b = clean(qs[0]), clean(qs[1])
    text = jsonl([a, b])

    def v(change: str, data: bytes, **kw: Any) -> Variation:
        return Variation(f"{layout}/file/{change}", year, data, format=fmt, **kw)

    yield v("clean", text)
    # blank lines and line ends
    yield v("blank-line-inside", jsonl([a, "", b]))
    yield v("blank-line-at-start", jsonl(["", a, b]))
    yield v("blank-line-at-end", text + b"\n")
    yield v("blank-lines-at-end", text + b"\n\n\n")
    yield v("whitespace-line-inside", jsonl([a, "   \t", b]))
    yield v("whitespace-line-at-end", text + b"  \n")
    yield v("no-newline-at-end", text[:-1])
    yield v("crlf", jsonl([a, b], "\r\n"))
    yield v("cr-only", jsonl([a, b], "\r"))
    yield v("spaces-around-a-line", jsonl(["  " + dumps(a) + "  ", b]))
    yield v("indented-json", (json.dumps(a, indent=1) + "\n").encode() + jsonl([b]))
    # repeats
    yield v("duplicate-line", jsonl([a, a, b]))
    yield v("duplicate-line-at-end", jsonl([a, b, b]))
    yield v("only-one-topic", jsonl([a]))
    for key in a:
        yield v(f"repeated-key-{key}-same-value", jsonl([_repeated_key(a, key, a[key]), b]))
        yield v(f"repeated-key-{key}-first-other", jsonl([_repeated_key(a, key, "x"), b]))
    if "metadata" in a:
        meta = _repeated_key(a["metadata"], "narrative_id", "x")
        rest = {k: w for k, w in a.items() if k != "metadata"}
        yield v("repeated-key-in-metadata", jsonl(['{"metadata": ' + meta + ", " + dumps(rest)[1:], b]))
    sentence = _repeated_key(a["answer"][0], "text", "x")
    rest = {k: w for k, w in a.items() if k != "answer"}
    answer = "[" + ", ".join([sentence, *(dumps(s) for s in a["answer"][1:])]) + "]"
    yield v("repeated-key-in-a-sentence", jsonl([dumps(rest)[:-1] + ', "answer": ' + answer + "}", b]))
    # unknown keys and the other layouts' keys
    yield v("unknown-key", jsonl([{**a, "extra": 1}, b]))
    yield v(
        "unknown-key-in-a-sentence",
        jsonl([{**a, "answer": [{**a["answer"][0], "extra": 1}, *a["answer"][1:]]}, b]),
    )
    if year == 2024:
        meta = line25({q: "x" for q in (*Q25, qs[0])}, qs[0])["metadata"]
        yield v("metadata-object-on-a-2024-line", jsonl([{**a, "metadata": meta}, b]))
        yield v("metadata-string-on-a-2024-line", jsonl([{**a, "metadata": "x"}, b]))
    else:
        yield v("unknown-key-in-metadata", jsonl([{**a, "metadata": {**a["metadata"], "extra": 1}}, b]))
        yield v(
            "2024-keys-on-a-2025-line",
            jsonl([{**a, "run_id": "r", "topic_id": qs[0], "topic": "t", "response_length": LENGTH}, b]),
        )
    # encodings
    yield v("byte-order-mark", "\ufeff".encode() + text)
    yield v("utf-16", (text.decode()).encode("utf-16"))
    yield v("utf-16-le-without-mark", (text.decode()).encode("utf-16-le"))
    yield v("latin-1-byte-in-a-text", text.replace(b"usually", "usuallé".encode("latin-1")))
    yield v("utf-8-accent-in-a-text", text.replace(b"usually", "usuallé".encode()))
    yield v("nul-byte-in-a-text", text.replace(b"usually", b"usu\x00ally"))
    yield v("raw-u2028-in-a-text", text.replace(b"usually", "usu\u2028ally".encode()))
    yield v("raw-u0085-in-a-text", text.replace(b"usually", "usu\u0085ally".encode()))
    yield v("escaped-u2028-in-a-text", text.replace(b"usually", b"usu\\u2028ally"))
    yield v("raw-tab-in-a-text", text.replace(b"usually", b"usu\tally"))
    if year == 2024:
        yield v("nan-response-length", text.replace(b'"response_length": 15', b'"response_length": NaN', 1))
        yield v(
            "infinite-response-length",
            text.replace(b'"response_length": 15', b'"response_length": Infinity', 1),
        )
    elif fmt == 1:
        yield v("nan-citation", text.replace(b'"citations": [0, 1]', b'"citations": [NaN]', 1))
    yield v("gzip-named-gz", gzip.compress(text, mtime=0), name="run.jsonl.gz")
    yield v("gzip-named-jsonl", gzip.compress(text, mtime=0))
    yield v("plain-text-named-gz", text, name="run.jsonl.gz")
    yield v("truncated-gzip", gzip.compress(text, mtime=0)[:-12], name="run.jsonl.gz")
    # not a run
    yield v("empty-file", b"")
    yield v("only-a-newline", b"\n")
    yield v("a-line-that-is-an-array", jsonl([[a], b]))
    yield v("a-line-that-is-a-string", jsonl(['"x"', b]))
    yield v("a-line-that-is-a-number", jsonl(["7", b]))
    yield v("a-line-that-is-null", jsonl(["null", b]))
    yield v("invalid-json", jsonl(["{not json", b]))
    yield v("two-objects-on-a-line", jsonl([dumps(a) + " " + dumps(b)]))
    yield v("trailing-comma", jsonl([dumps(a)[:-1] + ",}", b]))
    # several runs, topics
    other = copy.deepcopy(b)
    if year == 2024:
        other["run_id"] = "other"
    else:
        other["metadata"]["run_id"] = "other"
    yield v("a-second-run-id", jsonl([a, other]))
    yield v("full-size-run", jsonl([clean(q) for q in every]), topics="all")
    yield v("full-size-run-one-topic-missing", jsonl([clean(q) for q in every[1:]]), topics="all")
    # limits
    yield from limit_variations(layout, clean, qs)


def _with(row: dict[str, Any], **over: Any) -> dict[str, Any]:
    row = copy.deepcopy(row)
    row.update(over)
    return row


def _answer(fmt: int, refs: list[str], cites: list[list[int]], texts: list[str]) -> list[dict[str, Any]]:
    return [
        {"text": t, "citations": [refs[i] for i in c] if fmt == 2 else c}
        for t, c in zip(texts, cites, strict=True)
    ]


def limit_variations(
    layout: str, clean: Callable[[str], dict[str, Any]], qs: tuple[str, str]
) -> Iterator[Variation]:
    year = int(layout[:4])
    fmt = 2 if layout.endswith("f2") else 1
    b = clean(qs[1])

    def v(change: str, row: dict[str, Any]) -> Variation:
        if year == 2024 and "answer" in row:  # the reported length is right unless the case says
            row.setdefault("response_length", sum(count(s["text"]) for s in row["answer"]))
        return Variation(f"{layout}/limit/{change}", year, jsonl([row, b]), format=fmt)

    def words(n: int) -> str:
        return " ".join(["word"] * (n - 1) + ["end."])

    def row(refs: list[str], cites: list[list[int]], texts: list[str], **over: Any) -> dict[str, Any]:
        r = _with(clean(qs[0]), references=refs, answer=_answer(fmt, refs, cites, texts))
        if year == 2024:
            r.pop("response_length")
        r.update(over)
        return r

    limit = 20 if year == 2024 else 100
    for n in (0, 1, limit - 1, limit, limit + 1):
        refs = [segment(i) for i in range(n)]
        yield v(f"{n}-references", row(refs, [[0]] if n else [[]], ["Cited."]))
    refs = [segment(i) for i in range(limit)]
    yield v(f"one-sentence-citing-all-{limit}", row(refs, [list(range(limit))], ["Cited."]))
    yield v(f"citation-index-{limit - 1}-of-{limit}", row(refs, [[limit - 1]], ["Cited."]))
    if fmt == 1:
        yield v(f"citation-index-{limit}-of-{limit}", row(refs, [[limit]], ["Cited."]))
        yield v("citation-index-minus-one", row(refs, [[-1]], ["Cited."]))
    if year == 2025:
        big = [segment(i) for i in range(limit + 2)]
        yield v(
            f"{limit + 2}-references-citing-the-last",
            row(big, [[0, limit + 1], [limit]], ["One.", "Two."]),
        )
    refs3 = list(REFS)
    yield v("a-citation-repeated-in-a-sentence", row(refs3, [[0, 0]], ["Cited twice."]))
    yield v("a-citation-three-times-in-a-sentence", row(refs3, [[1, 1, 1]], ["Cited thrice."]))
    yield v("a-reference-repeated", row([*refs3, refs3[0]], [[0]], ["Cited."]))
    yield v("a-citation-in-every-sentence-repeated", row(refs3, [[0, 0], [1, 1]], ["One.", "Two."]))
    for n in (399, 400, 401):
        yield v(f"answer-of-{n}-words-in-one-sentence", row(refs3, [[0]], [words(n)]))
    yield v("answer-of-401-words-in-two-sentences", row(refs3, [[0], [1]], [words(200), words(201)]))
    yield v(
        "answer-of-405-words-400-after-the-fix",
        row(refs3, [[0], [1], [2]], [words(300), words(100), words(5)]),
    )
    yield v(
        "answer-of-450-words-the-fix-cuts-two",
        row(refs3, [[0], [1], [2]], [words(300), words(100), words(50)]),
    )
    if year == 2024:  # 2025: the field variation answer/empty-list
        yield v("answer-of-0-sentences", row(refs3, [], []))
    yield v("a-sentence-of-0-words", row(refs3, [[0]], [""]))
    yield v("a-sentence-of-whitespace", row(refs3, [[0]], ["  \t "]))
    yield v("words-counted-after-nfkc", row(refs3, [[0]], ["a\u00a8b and\u3000two\u2003more."]))
    if year == 2024:
        for n in (399, 400, 401):
            yield v(f"response-length-{n}-for-15-words", _with(clean(qs[0]), response_length=n))
        yield v("response-length-as-counted-before-nfkc", row(refs3, [[0]], ["a\u00a8b"], response_length=1))


def variations(texts24: Mapping[str, str], texts25: Mapping[str, str]) -> list[Variation]:
    """Every variation, in a fixed order (ids unique)."""
    out: list[Variation] = []
    layouts: list[tuple[str, Callable[[str], dict[str, Any]], tuple[str, str], list[str]]] = [
        ("2024", lambda q: line24(texts24, q), Q24, list(texts24)),
        ("2025f1", lambda q: line25(texts25, q, 1), Q25, list(texts25)),
        ("2025f2", lambda q: line25(texts25, q, 2), Q25, list(texts25)),
    ]
    for layout, clean, qs, every in layouts:
        out += field_variations(layout, clean, qs)
        out += file_variations(layout, clean, qs, every)
    ids = [v.id for v in out]
    assert len(set(ids)) == len(ids), "variation ids must be unique"
    files = {(v.year, v.format, v.name, v.topics, v.data) for v in out}
    assert len(files) == len(out), "two variations write the same file"
    return out


def topic_sets(
    texts24: Mapping[str, str], texts25: Mapping[str, str]
) -> dict[tuple[int, str], dict[str, str]]:
    """The topics each reader is given: the clean lines' two, or all of the task's."""
    return {
        (2024, "base"): {q: texts24[q] for q in Q24},
        (2024, "all"): dict(texts24),
        (2025, "base"): {q: texts25[q] for q in Q25},
        (2025, "all"): dict(texts25),
    }


def official_texts() -> tuple[dict[str, str], dict[str, str]]:
    """The official topic texts, from groundcover's tasks (``trec-rag24``, ``trec-rag25``)."""
    from benchmark.tasks import load_task

    return load_task("trec-rag24").query_texts(), load_task("trec-rag25").query_texts()


# -- writing the files and recording the checker's verdicts ----------------------------------------


def write(folder: Path) -> None:
    """Every variation as a file in ``folder`` (``<n>/<name>``), the topic files in the
    checkers' formats (2024: ``id<TAB>text``; 2025: JSON lines with ``id`` and ``title``)
    and ``manifest.json``."""
    texts24, texts25 = official_texts()
    sets = topic_sets(texts24, texts25)
    folder.mkdir(parents=True, exist_ok=True)
    for (year, name), topics in sets.items():
        path = folder / f"topics-{year}-{name}"
        if year == 2024:
            path.write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
        else:
            path.write_text(
                "".join(json.dumps({"id": q, "title": t}) + "\n" for q, t in topics.items()), encoding="utf-8"
            )
    manifest = []
    for n, var in enumerate(variations(texts24, texts25)):
        (folder / str(n)).mkdir(exist_ok=True)
        (folder / str(n) / var.name).write_bytes(var.data)
        manifest.append(
            {"id": var.id, "year": var.year, "format": var.format, "file": f"{n}/{var.name}",
             "topics": f"topics-{var.year}-{var.topics}", "sha256": var.sha256}
        )  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")


class _Log:
    """The 2024 checker's log (its ``Rag24Log`` protocol): every error and warning kept."""

    def __init__(self) -> None:
        self.error_count = 0
        self.messages: list[str] = []

    def error(self, line: int, msg: str) -> None:
        self.error_count += 1
        self.messages.append(f"ERROR line {line}: {msg}")

    def warn(self, line: int, msg: str) -> None:
        self.messages.append(f"WARNING line {line}: {msg}")


def _checker_verdict(entry: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    import contextlib
    import io
    import traceback

    run, topics = str(folder / entry["file"]), str(folder / entry["topics"])
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            if entry["year"] == 2024:
                from ragnarok.scripts.rag24_validation import check_rag24_run

                log = _Log()
                check_rag24_run(topicfile=topics, runfile=run, log=log)
                errors = log.error_count
                warnings = sum(m.startswith("WARNING") for m in log.messages)
                messages = log.messages
            else:
                from ragnarok.scripts.rag25_validation import validate_rag25_entries

                summary = validate_rag25_entries(
                    input_path=run, topics_path=topics, format_type=entry["format"]
                )
                errors, warnings = summary["error_count"], summary["warning_count"]
                messages = [m for m in printed.getvalue().splitlines() if m.startswith("[Line")]
    except Exception as exc:  # the checker stops: the file does not pass
        last = traceback.extract_tb(exc.__traceback__)[-1]
        return {
            "verdict": "error",
            "messages": [f"stopped: {type(exc).__name__}: {exc} ({Path(last.filename).name}:{last.lineno})"],
        }
    verdict = "error" if errors else "warning" if warnings else "ok"
    return {"verdict": verdict, "messages": [m[:300] for m in messages[:8]]}


def record(folder: Path, ragnarok_src: Path, out: Path) -> None:
    """The checker's verdict on every file ``write`` wrote, by its own functions."""
    sys.path.insert(0, str(ragnarok_src))
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    verdicts = {}
    for entry in manifest:
        got = _checker_verdict(entry, folder)
        verdicts[entry["id"]] = {"sha256": entry["sha256"], **got}
    fixture = {
        "about": (
            "The TREC RAG track checkers' verdicts on every run-file variation of "
            "tests/conformance/trec_rag_variations.py, obtained by running the checkers' own functions "
            "(check_rag24_run; validate_rag25_entries with --format as the variation's, no fix flags) from "
            "castorini/ragnarok at the commit below. 'error': the checker refuses the file (or stops on it); "
            "'warning': it passes with warnings; 'ok': it passes silently."
        ),
        "ragnarok_commit": RAGNAROK_COMMIT,
        "generator": "tests/conformance/trec_rag_variations.py",
        "generator_version": GENERATOR_VERSION,
        "variations": verdicts,
    }
    out.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    import argparse

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write every variation and the topic files into a folder")
    w.add_argument("folder", type=Path)
    r = sub.add_parser("record", help="run the checkers on a written folder and write their verdicts")
    r.add_argument("folder", type=Path)
    r.add_argument(
        "--ragnarok", type=Path, required=True, help=f"castorini/ragnarok's src folder at {RAGNAROK_COMMIT}"
    )
    r.add_argument("--out", type=Path, default=FIXTURE)
    args = p.parse_args(argv)
    if args.command == "write":
        write(args.folder)
    else:
        record(args.folder, args.ragnarok, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
