"""Submissions: data-only folders that a pull request adds under ``submissions/``.

``submissions/<org>__<model>/`` holds ``model.yaml`` (:class:`ModelCard`) and one outputs
JSONL per task, never scores.  Everything in it is untrusted: :func:`validate_submission`
checks the raw bytes before any parser does, reads YAML safely, and rejects a folder with
any problem as a whole, listing every problem.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from benchmark.answers.outputs import parse_lines, read_rows
from benchmark.answers.row import OutputRow
from benchmark.answers.rules import MAX_PROBLEMS
from benchmark.core.errors import InputError, Problem
from benchmark.core.results import SEGMENT_CHARS, RAGSetting
from benchmark.core.secrets import secret_problems
from benchmark.core.untrusted import YAMLDataError, load_yaml, text_field_problems, yaml_key_lines

if TYPE_CHECKING:
    from benchmark.tasks import Task

MODEL_CARD = "model.yaml"
MAX_FILES = 64
MAX_FILE_BYTES = 25 * 1024 * 1024
MAX_TOTAL_BYTES = 200 * 1024 * 1024
MAX_CARD_CHARS = 64_000
#: rows an outputs file may hold: this many per query of the task (a few spare for mistakes)
ROWS_PER_QUERY = 2
#: seconds one folder's validation may take before it ends with an error, not a stalled CI job
TIME_BUDGET_S = 60.0
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
# a revision names a results folder: the characters result paths keep (SEGMENT_CHARS)
_REVISION_RE = re.compile(rf"^[A-Za-z0-9][{SEGMENT_CHARS}]{{0,63}}$")

#: Leading bytes of content that must never be in a data-only submission.
_MAGIC = {
    **dict.fromkeys((b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"), "a Python pickle"),
    b"\x7fELF": "an ELF executable",
    b"MZ": "a Windows executable",
    b"#!": "a script (shebang)",
    b"PK\x03\x04": "a zip archive",
    b"\x1f\x8b": "a gzip archive",
    b"\xca\xfe\xba\xbe": "a Mach-O/Java class file",
    b"\xcf\xfa\xed\xfe": "a Mach-O executable",
}
_PICKLE_HINTS = (b"cposix\nsystem", b"cbuiltins\n", b"c__builtin__\n", b"\x93.", b"numpy.core.multiarray")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ModelCard(_Strict):
    """``model.yaml``: who made the model and how its answers were generated."""

    name: str = Field(min_length=1, max_length=96, description="model name, e.g. Llama-3.1-8B-Instruct")
    org: str = Field(min_length=1, max_length=96, description="organisation or user, e.g. meta-llama")
    revision: str = Field(default="main", min_length=1, max_length=64, description="commit or tag")
    license: str = Field(min_length=1, max_length=96)
    parameters: StrictInt | None = Field(
        default=None, ge=0, description="parameter count; null if unknown, 0 if the system has no model"
    )
    open_weights: StrictBool
    links: list[HttpUrl] = Field(default_factory=list, max_length=10)
    contact: str = Field(min_length=1, max_length=200, description="e-mail or GitHub handle")
    generation: dict[str, Any] = Field(default_factory=dict, description="backend, sampling settings")
    rag: RAGSetting | None = Field(
        default=None,
        description="retrieval-augmented: the setting every answer was generated with; null: closed-book",
    )
    description: str | None = Field(default=None, max_length=2000)
    kind: Literal["model", "baseline", "oracle", "ceiling check"] = Field(
        default="model",
        description=(
            "'model' (ranked), or a reference entry: a 'baseline', an 'oracle' or a 'ceiling check' "
            "(shown apart from the models, never ranked among them)"
        ),
    )
    reference_setting: str | None = Field(
        default=None,
        max_length=120,
        description="a reference entry's real setting, e.g. 'copies BM25 top-3 passages of the judged corpus'",
    )

    @field_validator("name", "org")
    @classmethod
    def _plain_name(cls, v: str) -> str:
        if not _NAME_RE.match(v):
            raise ValueError("use letters, digits, '.', '_' and '-' only (it names a folder and a URL)")
        return v

    @field_validator("revision")
    @classmethod
    def _plain_revision(cls, v: str) -> str:
        if not _REVISION_RE.match(v):
            raise ValueError(
                "use letters, digits, '.', '_', '-', '+' and '=' only (it names a results folder)"
            )
        return v

    @model_validator(mode="after")
    def _reference_setting_of_reference(self) -> ModelCard:
        if self.reference_setting is not None and self.kind == "model":
            raise ValueError(
                "reference_setting is for a reference entry (kind: baseline, oracle or ceiling check)"
            )
        return self

    @property
    def is_reference(self) -> bool:
        """A baseline, oracle or ceiling check: shown apart, never ranked among models."""
        return self.kind != "model"

    @property
    def model_id(self) -> str:
        return f"{self.org}/{self.name}"

    @property
    def setting(self) -> str:
        return "closed-book" if self.rag is None else self.rag.slug

    @property
    def folder_name(self) -> str:
        """``org__name``, and ``org__name__rag-bm25-k5`` for a RAG entry of the same model."""
        return f"{self.org}__{self.name}" + ("" if self.rag is None else f"__{self.rag.slug}")


@dataclass
class Submission:
    """A validated submission: its card and the answers per task."""

    path: Path
    card: ModelCard
    outputs: dict[str, list[OutputRow]] = field(default_factory=dict)


# -- validation --------------------------------------------------------------------------


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def _check_bytes(data: bytes, shown: str) -> list[Problem]:
    looks = [what for magic, what in _MAGIC.items() if data.startswith(magic)]
    problems = [Problem(shown, f"file looks like {what}; submissions are text data only") for what in looks]
    if any(h in data for h in _PICKLE_HINTS) and data[:1] == b"\x80":
        problems.append(Problem(shown, "file contains pickle opcodes; submissions are text data only"))
    if b"\x00" in data:
        problems.append(Problem(shown, "file contains NUL bytes; submissions are UTF-8 text"))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(Problem(shown, f"not valid UTF-8 (byte offset {exc.start})", line=line))
    return problems


def _load_card(text: str, shown: str) -> tuple[ModelCard | None, list[Problem]]:
    if len(text) > MAX_CARD_CHARS:
        return None, [Problem(shown, f"model card longer than {MAX_CARD_CHARS} characters")]
    try:
        raw = load_yaml(text)
    except YAMLDataError as exc:
        return None, [Problem(shown, str(exc), line=exc.line)]
    if not isinstance(raw, dict):
        return None, [Problem(shown, "model card must be a mapping of fields")]
    lines = yaml_key_lines(text)
    problems = text_field_problems(raw, shown, None, lines)
    for top, value in raw.items():
        problems += secret_problems({top: value}, shown, lines.get(str(top)), "")
    try:
        card = ModelCard.model_validate(raw)
    except ValidationError as exc:
        for e in exc.errors():
            top = str(e["loc"][0]) if e["loc"] else None
            problems.append(
                Problem(shown, e["msg"], lines.get(top or ""), ".".join(str(x) for x in e["loc"]) or None)
            )
        return None, problems
    return (card if not problems else None), problems


def _rag_difference(row: RAGSetting | None, card: RAGSetting | None) -> str:
    """What differs between a row's retrieval setting and the card's, field by field."""
    if (row is None) != (card is None):
        got = row.slug if row else "closed-book"
        want = card.slug if card else "closed-book"
        return f"row was generated {got}, model.yaml says {want}"
    assert row is not None and card is not None
    fields = [
        f"{name}: row {getattr(row, name)!r}, model.yaml {getattr(card, name)!r}"
        for name in type(row).model_fields
        if getattr(row, name) != getattr(card, name)
    ]
    return "the row's retrieval setting differs from model.yaml's rag (" + "; ".join(fields) + ")"


def _deadline(seconds: float, shown: str) -> Callable[[], None]:
    """The time budget of one validation: a check that raises once it is spent."""
    end = time.monotonic() + seconds

    def check() -> None:
        if time.monotonic() > end:
            raise InputError.at(
                shown,
                f"validation stopped after {seconds:g} s; a submission this slow to read is refused "
                "(is a file far larger or more deeply nested than a task's answers need?)",
            )

    return check


def _card_problems(
    row: OutputRow, shown: str, line_no: int, card: ModelCard | None, task_id: str
) -> list[Problem]:
    """The submission door's own rules on a row: it belongs to this file's task, and to the
    model, revision and retrieval setting its model card declares."""
    problems = []
    if row.task is not None and row.task != task_id:
        problems.append(
            Problem(shown, f"row names task {row.task!r}, but this file is for {task_id!r}", line_no, "task")
        )
    if card is not None and (row.model != card.model_id or row.revision != card.revision):
        problems.append(
            Problem(
                shown,
                f"row is from {row.model}@{row.revision}, model.yaml says {card.model_id}@{card.revision}",
                line_no,
                "model",
            )
        )
    if card is not None and row.rag != card.rag:
        problems.append(Problem(shown, _rag_difference(row.rag, card.rag), line_no, "rag"))
    return problems


def _load_outputs(
    text: str,
    path: Path,
    shown: str,
    card: ModelCard | None,
    task_id: str,
    deadline: Callable[[], None],
) -> tuple[list[OutputRow], list[Problem]]:
    """Rows of one outputs file and its problems: the rule book every door shares, then the
    submission's own (no more rows than its task needs, the card's identity and setting, every
    scored query answered)."""
    task = submitted_task(task_id)
    known, required = required_queries(task_id)
    max_rows = ROWS_PER_QUERY * len(known) + 10
    lines = text.split("\n")
    n_lines = len(lines) - (text.endswith("\n"))
    if n_lines > max_rows and sum(1 for line in lines if line.strip()) > max_rows:
        return [], [
            Problem(
                shown,
                f"{n_lines} lines; task {task_id} has {len(known)} queries, so at most {max_rows} rows are read",
            )
        ]
    objects, problems = parse_lines(text, shown, tick=deadline)
    read, problems = read_rows(objects, path, None, problems, task=task, shown=shown)
    for line_no, row in read:
        problems += _card_problems(row, shown, line_no, card, task_id)
    # answered, well or not: a row refused for another reason is not also "missing"
    seen = {str(obj.get("query_id")) for _, obj in objects if isinstance(obj, dict)}
    missing = [q for q in required if q not in seen]
    if missing and len(problems) < MAX_PROBLEMS:  # a file read to its end: what it lacks is known
        problems.append(
            Problem(shown, f"{len(missing)} required query id(s) missing: {missing[:10]}", field="query_id")
        )
    if not read and not problems:
        problems.append(Problem(shown, "outputs file has no answers"))
    return [row for _, row in read], problems


def required_queries(task_id: str) -> tuple[set[str], list[str]]:
    """All query ids of a task, and those a submission must answer (the scored ones)."""
    from benchmark.core import paths

    task = submitted_task(task_id)
    return set(task.table("queries")["query_id"]), list(_scorable(task_id, str(paths.tasks_dir())))


@lru_cache(maxsize=32)
def _scorable(task_id: str, tasks_dir: str) -> tuple[str, ...]:
    from benchmark.families import scorable_queries

    return tuple(scorable_queries(submitted_task(task_id)))


def submitted_task(task_id: str) -> Task:
    """A shipped task, loaded once per tasks folder: reading a task's tables is what
    validation spends time on."""
    from benchmark.core import paths

    return _submitted_task(task_id, str(paths.tasks_dir()))


@lru_cache(maxsize=32)
def _submitted_task(task_id: str, tasks_dir: str) -> Task:
    from benchmark.tasks import load_task

    return load_task(task_id)


def _guarded(shown: str, load: Callable[[], tuple[Any, list[Problem]]]) -> tuple[Any, list[Problem]]:
    """Run one file's checks; anything unforeseen becomes a problem of that file, not a traceback."""
    try:
        return load()
    except InputError:
        raise  # the time budget: the whole validation ends here
    except Exception as exc:  # untrusted input must never crash the validator
        return None, [Problem(shown, f"could not be read ({type(exc).__name__}: {str(exc)[:200]})")]


def _count_entries(root: Path, shown_root: str) -> None:
    """Refuse a folder with more entries than a submission may hold before reading any."""
    with os.scandir(root) as entries:
        for n, _ in enumerate(entries, start=1):
            if n > MAX_FILES:
                raise InputError.at(
                    shown_root, f"more than {MAX_FILES} entries; a submission holds at most {MAX_FILES} files"
                )


def _task_queries(task_id: str, shown: str) -> Problem | None:
    """A problem when the project cannot score ``task_id`` from a submission (no shipped
    corpus, say), in words for a submitter; ``None`` when it can."""
    try:
        required_queries(task_id)
    except InputError as exc:
        why = "; ".join(p.message.split(";")[0] for p in exc.problems)
        return Problem(
            shown,
            f"the leaderboard cannot score task {task_id} from a submission ({why}); "
            "submit tasks that ship their corpus, and score this one yourself with `benchmark score`",
        )
    return None


def _entry_problem(p: Path, st: os.stat_result, resolved_root: Path) -> str | None:
    """Why one folder entry cannot be part of a submission, or ``None`` for a plain file."""
    if stat.S_ISLNK(st.st_mode):
        return "symbolic links are not allowed"
    if stat.S_ISDIR(st.st_mode):
        return "sub-folders are not allowed; put files directly in the submission"
    if not stat.S_ISREG(st.st_mode):
        return "only regular files are allowed"
    if not p.resolve().is_relative_to(resolved_root):
        return "path escapes the submission folder"
    if st.st_nlink > 1:
        return "a hard link (git cannot carry one): copy the file's content instead"
    return None


def _folder_files(root: Path) -> tuple[list[Path], list[Problem]]:
    """The folder's plain files (never following a link or descending), and what is wrong
    with the rest and with their number and size."""
    problems: list[Problem] = []
    files: list[Path] = []
    resolved_root = root.resolve()
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        p = Path(entry.path)
        st = p.lstat()
        if why := _entry_problem(p, st, resolved_root):
            problems.append(Problem(_display(p, root), why))
            continue
        if st.st_mode & 0o111:
            problems.append(Problem(_display(p, root), "executable files are not allowed (clear the x bit)"))
        files.append(p)
    shown_root = _display(root, root)
    if len(files) > MAX_FILES:
        problems.append(Problem(shown_root, f"{len(files)} files; at most {MAX_FILES} are allowed"))
    total = sum(p.stat().st_size for p in files)
    if total > MAX_TOTAL_BYTES:
        problems.append(Problem(shown_root, f"{total} bytes in all; at most {MAX_TOTAL_BYTES} are allowed"))
    return files, problems


def _read_texts(
    files: list[Path], root: Path, allowed_tasks: set[str]
) -> tuple[dict[Path, str], list[Problem]]:
    """The text of every expected file whose bytes are plain UTF-8 data."""
    problems: list[Problem] = []
    texts: dict[Path, str] = {}
    for p in files:
        shown = _display(p, root)
        if p.name != MODEL_CARD and (p.suffix != ".jsonl" or p.stem not in allowed_tasks):
            problems.append(
                Problem(
                    shown,
                    f"unexpected file; a submission holds {MODEL_CARD} and <task_id>.jsonl for known tasks "
                    f"({', '.join(sorted(allowed_tasks))})",
                )
            )
            continue
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.append(Problem(shown, f"{size} bytes; at most {MAX_FILE_BYTES} per file"))
            continue
        data = p.read_bytes()
        byte_problems = _check_bytes(data, shown)
        problems.extend(byte_problems)
        if not byte_problems:
            texts[p] = data.decode("utf-8")
    return texts, problems


def _check_card(
    root: Path, texts: dict[Path, str], known: list[Problem]
) -> tuple[ModelCard | None, list[Problem]]:
    """The model card, and its problems (a missing one, a folder not named after it)."""
    card_path = root / MODEL_CARD
    shown = _display(card_path, root)
    if card_path not in texts:
        return None, [] if any(pr.file == shown for pr in known) else [Problem(shown, "missing model card")]
    card, problems = _guarded(shown, lambda: _load_card(texts[card_path], shown))
    if card is not None and root.name != card.folder_name:
        problems.append(
            Problem(
                _display(root, root),
                f"folder must be named {card.folder_name!r} after org and name in model.yaml",
            )
        )
    return card, problems


def _check_outputs(
    root: Path, texts: dict[Path, str], card: ModelCard | None, deadline: Callable[[], None]
) -> tuple[dict[str, list[OutputRow]], list[Problem]]:
    """Every outputs file's rows, checked against the card and its task."""
    problems: list[Problem] = []
    outputs: dict[str, list[OutputRow]] = {}
    for p, text in texts.items():
        if p.name == MODEL_CARD:
            continue
        shown = _display(p, root)
        if unscorable := _task_queries(p.stem, shown):
            problems.append(unscorable)
            continue
        rows, out_problems = _guarded(
            shown, lambda p=p, text=text, shown=shown: _load_outputs(text, p, shown, card, p.stem, deadline)
        )
        problems.extend(out_problems)
        outputs[p.stem] = rows or []
    return outputs, problems


def validate_submission(folder: Path | str, *, time_budget_s: float = TIME_BUDGET_S) -> Submission:
    """Check a submission folder completely (its tasks: shipped ones); raise :class:`InputError`
    listing every problem.  Reading is bounded: in entries, problems per file, rows per task,
    and ``time_budget_s`` seconds in all."""
    from benchmark.tasks import list_tasks

    root = Path(folder)
    shown_root = _display(root, root)
    if root.is_symlink():
        raise InputError.at(shown_root, "the submission folder is a symbolic link")
    if not root.is_dir():
        raise InputError.at(shown_root, "submission folder does not exist")
    _count_entries(root, shown_root)
    deadline = _deadline(time_budget_s, shown_root)
    allowed_tasks = {c.id for c in list_tasks()}
    files, problems = _folder_files(root)
    texts, read_problems = _read_texts(files, root, allowed_tasks)
    problems += read_problems
    card, card_problems = _check_card(root, texts, problems)
    problems += card_problems
    outputs, output_problems = _check_outputs(root, texts, card, deadline)
    problems += output_problems
    if not outputs and not any(p.suffix == ".jsonl" for p in files):
        problems.append(Problem(shown_root, "no outputs: add one <task_id>.jsonl per task"))
    if problems or card is None:
        raise InputError(problems or [Problem(shown_root, "model card could not be read")])
    return Submission(path=root, card=card, outputs=outputs)


# -- building a submission from an evaluation run ----------------------------------------


def build_submission(
    outputs: Iterable[Path],
    card: ModelCard,
    dest_root: Path,
    *,
    overwrite: bool = False,
    relabelled: dict[str, int] | None = None,
) -> Path:
    """Write ``<dest_root>/<folder>/`` from outputs JSONL files and a card, all or nothing
    (built and validated beside its destination, then moved into place).

    Rows are re-serialised from the validated :class:`OutputRow` (nothing beyond the schema
    leaks in) under the card's ``model``/``revision``; a row written by another model keeps
    that identity in ``generated_by``, and ``relabelled`` counts such rows per original
    ``model@revision``."""
    from benchmark.answers.outputs import read_outputs, write_outputs

    dest = dest_root / card.folder_name
    if dest.exists() and any(dest.iterdir()) and not overwrite:
        raise InputError.at(str(dest), "submission folder exists; pass --overwrite to replace it")
    dest_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{card.folder_name}.", dir=dest_root)) / card.folder_name
    renamed = relabelled if relabelled is not None else {}
    try:
        staging.mkdir()
        written = 0
        for src in outputs:
            rows = read_outputs(src)
            task_ids = {r.task for r in rows if r.task}
            task_id = task_ids.pop() if len(task_ids) == 1 else Path(src).stem
            relabelled_rows = []
            for r in rows:
                origin = f"{r.model}@{r.revision}"
                update: dict[str, Any] = {"model": card.model_id, "revision": card.revision, "task": task_id}
                if (r.model, r.revision) != (card.model_id, card.revision):
                    update["generated_by"] = r.generated_by or origin
                    renamed[origin] = renamed.get(origin, 0) + 1
                relabelled_rows.append(r.model_copy(update=update))
            write_outputs(relabelled_rows, staging / f"{task_id}.jsonl", exclude_none=True)
            written += 1
        if not written:
            raise InputError.at(str(dest_root), "no outputs files given")
        payload = card.model_dump(mode="json", exclude_none=True)
        (staging / MODEL_CARD).write_text(
            yaml.safe_dump(payload, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
        validate_submission(staging)
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staging, dest)
    finally:
        shutil.rmtree(staging.parent, ignore_errors=True)
    return dest


def load_model_cards(root: Path | str) -> dict[str, ModelCard]:
    """Valid model cards of the submissions under ``root``, by ``model id|setting`` and model id:
    display metadata only, so a card that does not validate is skipped."""
    cards: dict[str, ModelCard] = {}
    root = Path(root)
    if not root.is_dir():
        return cards
    for card_path in sorted(root.glob(f"*/{MODEL_CARD}")):
        if card_path.is_symlink() or card_path.parent.is_symlink():
            continue
        text = card_path.read_text(encoding="utf-8", errors="replace")
        card, problems = _load_card(text, str(card_path))
        if card is not None and not problems:
            cards[f"{card.model_id}|{card.setting}"] = card
            if card.rag is None or card.model_id not in cards:
                cards[card.model_id] = card
    return cards
