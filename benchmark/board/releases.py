"""Numbered releases of the board of record, and canaries compared with them.

Every publish is an immutable, numbered folder ``releases/<N>/`` of the results dataset
(its layout and its rules, one entry per model revision and setting: docs/hosted-board.md).
:func:`cut` writes nothing unless every result is complete and of the release's judge, and
replaces the endpoint's URL and key with :data:`REDACTED` in every file it copies in.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field
from scipy import stats as scipy_stats

from benchmark.board.leaderboard import Entry, Leaderboard, build_from_entries, load_entries
from benchmark.board.submissions import ModelCard
from benchmark.core import exports
from benchmark.core.errors import InputError, Problem
from benchmark.core.results import ModelInfo, now_iso, read_result, result_path
from benchmark.core.untrusted import load_yaml
from benchmark.families import REGISTRY
from benchmark.models import cards
from benchmark.models.cache import content_hash

RELEASES = "releases"
MANIFEST = "release.yaml"
CHANGELOG = "CHANGELOG.md"
COMPARISON = "canary.json"
#: what stands in a published file where the endpoint's URL or key stood
REDACTED = "<judge endpoint: repository secret>"
#: what a release takes of a result folder (figures are drawn again from these) and of a
#: submission folder: text only, as the Hub takes files pushed without LFS (each under 10 MB)
RESULT_FILES = (".json", ".traces.jsonl")
SUBMISSION_FILES = ("model.yaml", ".jsonl")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Scoring(_Strict):
    """One entry's scoring as a release publishes it."""

    key: str = Field(
        description="<model folder>/<revision>/<setting>: one entry per model revision and setting"
    )
    model: str
    revision: str
    setting: str
    folder: str = Field(description="the submission folder scored")
    data: int = Field(description="the release whose submissions/<folder>/ holds the answers scored")
    scored: int = Field(description="the release that first published this scoring")
    source: str = Field(description="what asked for it: a push, an approved pull request, a canary")
    tree: str | None = Field(default=None, description="git tree id of the submission folder scored")


class Replaced(Scoring):
    """An earlier scoring of an entry, kept in the history of every later release."""

    until: int = Field(description="the release it left the board in")
    why: str


class Manifest(_Strict):
    number: int = Field(ge=1)
    kind: Literal["release", "candidate"]
    created: str
    judge: str = Field(description="the judge profile's id, name@version")
    role: str = Field(description="the judge's role when this was cut: judge of record, or canary")
    groundcover: str | None = Field(description="the commit of the code that scored and cut it")
    compares_to: int | None = Field(default=None, description="a candidate: the release it is compared with")
    changelog: str
    entries: list[Scoring]
    history: list[Replaced] = Field(default_factory=list)


@dataclass(frozen=True)
class Scored:
    """A submission folder just scored, handed from the scoring step to :func:`cut`."""

    folder: Path
    source: str
    tree: str | None = None
    data: int | None = None  # a canary's re-scoring: where the answers already are


def release_dir(root: Path, number: int) -> Path:
    return root / RELEASES / str(number)


def numbers(root: Path) -> list[int]:
    """The releases in the dataset checkout ``root``, oldest first."""
    found = [p.parent.name for p in (root / RELEASES).glob(f"*/{MANIFEST}")]
    return sorted(int(n) for n in found if n.isdigit())


def read_manifest(root: Path, number: int) -> Manifest:
    path = release_dir(root, number) / MANIFEST
    try:
        return Manifest.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError.at(str(path), f"not a release manifest: {exc}") from exc


def base_of(root: Path, judge: str) -> Manifest | None:
    """The newest release (or candidate) of ``judge``: what the next one builds on."""
    return next((m for n in reversed(numbers(root)) if (m := read_manifest(root, n)).judge == judge), None)


def unseen_since(root: Path, number: int) -> str | None:
    """What a release promoted to the board of record would not show: the entries that a
    newer release of another judge published (added, re-submitted or deleted) after it was
    cut — a candidate re-scored the board as it was when the canary ran.  ``None``: nothing."""
    shown = read_manifest(root, number)
    newer = [m for n in numbers(root) if n > number if (m := read_manifest(root, n)).judge != shown.judge]
    newer = [m for m in newer if m.kind == "release"]
    if not newer:
        return None
    latest = newer[-1]
    differ = {(e.key, e.tree) for e in latest.entries} ^ {(e.key, e.tree) for e in shown.entries}
    if not differ:
        return None
    keys = ", ".join(sorted({key for key, _ in differ}))
    return f"release {number} does not show what release {latest.number} ({latest.judge}) has since: {keys}"


def entry_key(card: ModelCard) -> str:
    """The entry a submission's results land in: the folders :func:`result_path` gives them."""
    model = ModelInfo(id=card.model_id, revision=card.revision, rag=card.rag)
    return "/".join(result_path(Path(), model, "judge@1", "task", "family").parts[:3])


def cut(
    root: Path,
    *,
    kind: Literal["release", "candidate"],
    judge: str,
    role: str,
    results: Path,
    scored: Sequence[Scored],
    removed: Iterable[str] = (),
    source: str,
    profile_file: Path,
    groundcover: str | None,
    redact: Sequence[str] = (),
    compares_to: int | None = None,
) -> Manifest | None:
    """Write the next release into the dataset checkout ``root`` and return its manifest (``None``:
    nothing new).  A release builds on :func:`base_of` its judge, a candidate (the canary's
    re-scorings of ``compares_to``'s entries) on nothing; ``removed``: folders deleted since."""
    number = max(numbers(root), default=0) + 1
    dest = release_dir(root, number)
    base = base_of(root, judge) if kind == "release" else None
    entries = {e.key: e for e in (base.entries if base else [])}
    history = list(base.history) if base else []
    # the base release holds every folder as it was last scored
    folders_from = (
        {e.folder: release_dir(root, base.number) / "submissions" / e.folder for e in base.entries}
        if base
        else {}
    )

    gone = set(removed)
    for key, e in list(entries.items()):
        if e.folder in gone:
            history.append(Replaced(**e.model_dump(), until=number, why="submission deleted"))
            del entries[key]
            folders_from.pop(e.folder, None)
    fresh: dict[str, Scoring] = {}
    for s in sorted(scored, key=lambda s: s.data or 0):  # a folder's newest answers last
        card = ModelCard.model_validate(load_yaml((s.folder / "model.yaml").read_text(encoding="utf-8")))
        key = entry_key(card)
        old = entries.get(key)
        if old is not None and s.tree is not None and old.tree == s.tree and kind == "release":
            continue  # this very folder is published already (approved, then merged)
        if old is not None:
            history.append(Replaced(**old.model_dump(), until=number, why="re-submitted"))
        entries[key] = fresh[key] = Scoring(
            key=key,
            model=card.model_id,
            revision=card.revision,
            setting=card.setting,
            folder=s.folder.name,
            data=s.data or number,
            scored=number,
            source=s.source,
            tree=s.tree,
        )
        folders_from[s.folder.name] = s.folder
    dropped = [e.key for e in (base.entries if base else []) if e.key not in entries]
    if not fresh and not dropped:
        return None

    for key, e in sorted(entries.items()):
        src = results / key if key in fresh else release_dir(root, e.scored) / "results" / key
        _copy_tree(src, dest / "results" / key, redact if key in fresh else (), RESULT_FILES)
    for folder in sorted({e.folder for e in entries.values()}):
        _copy_tree(folders_from[folder], dest / "submissions" / folder, (), SUBMISSION_FILES)
    try:
        _check(dest, judge, set(entries))
    except InputError:
        shutil.rmtree(dest)
        raise
    _copy_file(profile_file, dest / "profile.yaml", redact)
    _copy_cards(judge, dest / "cards")

    changed = sorted(fresh) + [f"{key} (removed)" for key in sorted(dropped)]
    line = f"release {number} ({kind}, judge {judge}, {now_iso()[:10]}): {source}: " + ", ".join(changed)
    manifest = Manifest(
        number=number,
        kind=kind,
        created=now_iso(),
        judge=judge,
        role=role,
        groundcover=groundcover,
        compares_to=compares_to,
        changelog=line,
        entries=sorted(entries.values(), key=lambda e: e.key),
        history=history,
    )
    (dest / MANIFEST).write_text(
        yaml.safe_dump(manifest.model_dump(mode="json"), sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    write_tables(root, manifest)
    if compares_to is not None:
        (dest / COMPARISON).write_text(compare(root, compares_to, number).model_dump_json(indent=2) + "\n")
    with (root / CHANGELOG).open("a", encoding="utf-8") as log:
        log.write(f"- {line}\n")
    return manifest


def _copy_tree(src: Path, dest: Path, redact: Sequence[str], names: tuple[str, ...]) -> None:
    """The files of ``src`` whose names end in one of ``names``: plain files only (a link
    would publish whatever it points at; locks and half-written files start with a dot),
    secrets redacted."""
    if not src.is_dir():
        raise InputError.at(str(src), "no results were written for this entry")
    for path in sorted(src.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.name.endswith(names) and path.name[0] != ".":
            _copy_file(path, dest / path.relative_to(src), redact)


def _copy_file(src: Path, dest: Path, redact: Sequence[str]) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not redact or src.suffix not in (".json", ".jsonl", ".yaml", ".md"):
        shutil.copyfile(src, dest)
        return
    text = src.read_text(encoding="utf-8")
    for secret in sorted(filter(None, redact), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    dest.write_text(text, encoding="utf-8")


def _check(dest: Path, judge: str, keys: set[str]) -> None:
    """Every result complete and of the release's judge; every entry with results."""
    problems = []
    found: set[str] = set()
    for path in sorted((dest / "results").rglob("*.json")):
        shown = str(path.relative_to(dest))
        try:
            result = read_result(path)
        except (OSError, ValueError) as exc:
            problems.append(Problem(shown, f"not a result file: {str(exc).splitlines()[0]}"))
            continue
        found.add(_key_of(path, dest))
        if result.incomplete:
            problems.append(Problem(shown, f"incomplete, not published: {'; '.join(result.incomplete)}"))
        if result.profile_id != judge:
            problems.append(Problem(shown, f"judged by {result.profile_id}, not by this release's {judge}"))
    problems += [Problem(key, "an entry without results") for key in sorted(keys - found)]
    if problems:
        raise InputError(problems)


def _copy_cards(judge: str, dest: Path) -> None:
    judge_card = cards.card_path(judge)
    if judge_card.is_file():
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(judge_card, dest / judge_card.name)
    for path in sorted(cards.RANKINGS_DIR.glob("*.yaml")):
        if (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("profile") == judge:
            (dest / "rankings").mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / "rankings" / path.name)


# -- tables: the latest entry of each model, and every scoring ever published ---------------


def board(root: Path, number: int) -> Leaderboard:
    """The board of release ``number``, every entry (each model revision) on it."""
    where = release_dir(root, number)
    entries, skipped = load_entries(where / "results", where / "submissions")
    return build_from_entries(entries, skipped)


def _key_of(path: Path | None, where: Path) -> str:
    """The entry key of a result file under ``where/results``."""
    assert path is not None
    return "/".join(path.relative_to(where / "results").parts[:3])


def write_tables(root: Path, manifest: Manifest) -> list[Path]:
    """``tables/<board>.latest.csv`` (each model and setting's newest revision, ranked among
    themselves) and ``tables/<board>.history.csv`` (every scoring this judge's releases
    published, with the release that published it and whether it is still on the board)."""
    where = release_dir(root, manifest.number)
    entries, _ = load_entries(where / "results", where / "submissions")
    by_key = {e.key: e for e in manifest.entries}
    ordered = sorted(manifest.entries, key=lambda e: (e.data, e.scored, e.revision))
    latest_keys = {e.key for e in {(e.model, e.setting): e for e in ordered}.values()}  # newest of each
    latest = build_from_entries([e for e in entries if _key_of(e.path, where) in latest_keys])

    rows = [(e, by_key[_key_of(e.path, where)], "on the board") for e in entries]
    for old in manifest.history:
        past = release_dir(root, old.scored)
        found, _ = load_entries(past / "results" / old.key, past / "submissions")
        rows += [(e, old, f"{old.why} (left in release {old.until})") for e in found]
    history = pd.DataFrame(
        [
            {
                "family": e.result.metric_family,
                "board_id": e.board_id,
                "board": e.board,
                "model": e.result.model.id,
                "revision": e.result.model.revision,
                "setting": s.setting,
                "ranked_by": e.result.primary,
                "value": None if (score := e.result.scores.get(e.result.primary)) is None else score.value,
                "n": 0 if score is None else score.n,
                "scored_in_release": s.scored,
                "source": s.source,
                "status": status,
            }
            for e, s, status in rows
        ]
    )
    out = []
    tables = where / "tables"
    tables.mkdir(exist_ok=True)
    for fid in REGISTRY:
        table = latest.tables.get(fid)
        for board_id, rows_of in table.groupby("board_id") if table is not None and not table.empty else []:
            cols = [c for c in rows_of.columns if c not in ("link", "board_id")]
            out.append(exports.write_csv(rows_of[cols], tables / f"{fid}.{board_id}.latest.csv"))
    if not history.empty:
        for (fid, board_id), rows_of in history.groupby(["family", "board_id"]):
            ordered = rows_of.drop(columns=["family", "board_id"]).sort_values(
                ["model", "revision", "scored_in_release"]
            )
            out.append(exports.write_csv(ordered, tables / f"{fid}.{board_id}.history.csv"))
    return out


# -- canary: a candidate release beside the current one ------------------------------------


class Move(_Strict):
    model: str
    place_before: int = Field(description="position by the ranked score in the current release (1: best)")
    place_after: int
    rank_before: int | None = Field(description="the board's paired-test rank (shared when not different)")
    rank_after: int | None
    before: float | None
    after: float | None

    @property
    def moved(self) -> int:
        """Places gained (positive) or lost (negative) under the candidate judge."""
        return self.place_before - self.place_after


class BoardChange(_Strict):
    board: str = Field(description="the board, named without its judge (the two judges' boards are matched)")
    family: str
    ranked_by: str
    kendall_tau: float | None = Field(
        description="Kendall τ-b between the two boards' scores of the shared entries"
    )
    p_value: float | None
    entries: list[Move]
    only_current: list[str] = Field(default_factory=list)
    only_candidate: list[str] = Field(default_factory=list)


class Comparison(_Strict):
    current: int
    candidate: int
    current_judge: str
    candidate_judge: str
    boards: list[BoardChange]

    def markdown(self) -> str:
        """The comparison as a maintainer reads it in the job summary (plain text cells)."""
        from benchmark.board.render import md_cell

        lines = [
            f"## Canary: candidate release {self.candidate} ({md_cell(self.candidate_judge)}) beside "
            f"release {self.current} ({md_cell(self.current_judge)})",
        ]
        for b in self.boards:
            tau = "n/a (fewer than 2 shared entries)" if b.kendall_tau is None else f"{b.kendall_tau:.3f}"
            moved = [m for m in b.entries if m.moved]
            lines += [
                "",
                f"### {md_cell(b.board)}",
                f"Kendall τ between the boards: {tau}; {len(moved)} of {len(b.entries)} entries moved.",
                "",
                "| model | place before | place after | moved | rank before | rank after | before | after |",
                "|---|---|---|---|---|---|---|---|",
            ]
            lines += [
                f"| {md_cell(m.model)} | {m.place_before} | {m.place_after} | {m.moved:+d} | "
                f"{_num(m.rank_before)} | {_num(m.rank_after)} | {_num(m.before)} | {_num(m.after)} |"
                for m in b.entries
            ]
            for label, names in (
                ("only in the current release", b.only_current),
                ("only in the candidate", b.only_candidate),
            ):
                if names:
                    lines.append(f"\n{label}: " + ", ".join(md_cell(n) for n in names))
        return "\n".join(lines) + "\n"


def _num(value: float | int | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _judge_free_board(entry: Entry) -> str:
    """The board an entry is on, with its judge left out: the same board under two judges."""
    key = list(entry.result.board_key())
    del key[5]  # the profile id
    return content_hash(tuple(key))[:12]


def compare(root: Path, current: int, candidate: int) -> Comparison:
    """Per board, the shared entries' places and ranks under both judges, and Kendall τ."""
    before, after = board(root, current), board(root, candidate)
    judges = read_manifest(root, current).judge, read_manifest(root, candidate).judge
    match_old = {e.board_id: _judge_free_board(e) for e in before.entries}
    match_new = {e.board_id: _judge_free_board(e) for e in after.entries}
    changes = []
    for fid, family in REGISTRY.items():
        old, new = before.tables.get(fid), after.tables.get(fid)
        if old is None or new is None or old.empty or new.empty:
            continue
        old = old[~old["reference"]].assign(match=old["board_id"].map(match_old))
        new = new[~new["reference"]].assign(match=new["board_id"].map(match_new))
        for match, was in old.groupby("match"):
            now = new[new["match"] == match]
            if now.empty:
                continue
            primary = str(was["ranked_by"].iloc[0])
            col = family.column(primary)
            higher = col.higher_is_better if col else True
            shared = sorted(set(was["model"]) & set(now["model"]))
            a = was.set_index("model").loc[shared]
            b = now.set_index("model").loc[shared]
            places_a = _places(a[primary], higher)
            places_b = _places(b[primary], higher)
            tau = p = None
            if len(shared) >= 2:
                res = scipy_stats.kendalltau(a[primary].astype(float), b[primary].astype(float))
                tau, p = _opt_float(res.statistic), _opt_float(res.pvalue)
            moves = [
                Move(
                    model=m,
                    place_before=places_a[m],
                    place_after=places_b[m],
                    rank_before=_opt_int(a.at[m, "rank"]),
                    rank_after=_opt_int(b.at[m, "rank"]),
                    before=_opt_float(a.at[m, primary]),
                    after=_opt_float(b.at[m, primary]),
                )
                for m in shared
            ]
            changes.append(
                BoardChange(
                    board=str(now["board"].iloc[0]).rsplit(" [", 1)[0].replace(f" · {judges[1]}", ""),
                    family=fid,
                    ranked_by=primary,
                    kendall_tau=tau,
                    p_value=p,
                    entries=sorted(moves, key=lambda m: (m.place_after, m.model)),
                    only_current=sorted(set(was["model"]) - set(shared)),
                    only_candidate=sorted(set(now["model"]) - set(shared)),
                )
            )
    return Comparison(
        current=current,
        candidate=candidate,
        current_judge=judges[0],
        candidate_judge=judges[1],
        boards=changes,
    )


def _places(values: pd.Series, higher: bool) -> dict[str, int]:
    """1 for the best score, ties broken by name: the order a reader sees."""
    order = sorted(values.index, key=lambda m: (pd.isna(values[m]), -values[m] if higher else values[m], m))
    return {m: i + 1 for i, m in enumerate(order)}


def _opt_int(value: object) -> int | None:
    return None if value is None or pd.isna(value) else int(value)  # type: ignore[arg-type]


def _opt_float(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)  # type: ignore[arg-type]


def read_comparison(root: Path, candidate: int) -> Comparison | None:
    path = release_dir(root, candidate) / COMPARISON
    if not path.is_file():
        return None
    return Comparison.model_validate_json(path.read_text(encoding="utf-8"))
