"""``benchmark judge-card`` as a library call: load the profile's judges, pick the sets and
samples, and hand the scorers to :mod:`benchmark.metaeval.judge_cards`, whose card this writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from benchmark.core import paths
from benchmark.core.errors import InputError
from benchmark.models.cards import JudgeCard, best_baseline, write_card
from benchmark.models.profiles import DEFAULT_PROFILE, EntailmentSpec, JudgeProfile, load_profile

__all__ = ["DEFAULT_PROFILE", "JudgeCard", "best_baseline", "judge_card", "roles"]


def roles() -> list[str]:
    """Every judge role a registered family's scores depend on."""
    from benchmark.families import REGISTRY

    return sorted({r for fam in REGISTRY.values() for rs in fam.judged_by.values() for r in rs})


def judge_card(
    profile: str | JudgeProfile = DEFAULT_PROFILE,
    *,
    sets: str | Sequence[str] = "sick,rte",
    argument_sets: str | Sequence[str] = "ukpconvarg2",
    data_dir: str | Path | None = None,
    max_pairs: int | None = None,
    llm_pairs: int = 0,
    argument_items: int = 0,
    exam_grades: str | Path | None = None,
    exam_bank: str | Path | None = None,
    exam_grader: str | None = None,
    exam_licence: str = "as its owner licenses it",
    not_measured: str | None = None,
    out: str | Path | None = None,
) -> tuple[JudgeCard, Path]:
    """Measure ``profile``'s judges and write its card to ``out`` (default: the working folder; a
    shipped card is replaced only when ``out`` names it); returns the card and where it went.
    ``sets`` / ``argument_sets``: the public sets (``data_dir`` copies, else fetched at pinned
    commits); ``max_pairs``: a seeded sample of each; ``llm_pairs`` / ``argument_items``: also
    the (slow) LLM support and argument-quality judges; ``exam_grades`` with ``exam_bank``: the
    exam answerer; ``not_measured``: load no model, every role not measured, for that reason."""
    asked = dict(locals())  # the options, as the card's command records them
    from benchmark.metaeval import human_sets, judge_cards

    prof = profile if isinstance(profile, JudgeProfile) else load_profile(profile)
    target = paths.check_writable_file(out if out else judge_cards.default_out(prof.id), "--out")
    if max_pairs is not None and max_pairs < 10:
        raise InputError.at("--max-pairs", "at least 10 pairs per set, or leave it out for all")
    set_ids = _set_ids(sets, "--sets", "entailment")
    argument_ids = _set_ids(argument_sets, "--argument-sets", "argument-quality")
    if exam_grades and not exam_bank:
        raise InputError.at("--exam-bank", "--exam-grades needs the question bank its grades refer to")
    folder = Path(data_dir) if data_dir else None
    if not_measured:
        card = judge_cards.measure(prof, {}, {}, None, roles())
        why = [f"{not_measured}; {r.reason}" if r.reason else not_measured for r in card.roles]
        unmeasured = [r.model_copy(update={"reason": w}) for r, w in zip(card.roles, why, strict=True)]
        card = card.model_copy(update={"roles": unmeasured})
    else:
        from benchmark.judging.stack import JudgeStack

        judges = JudgeStack.load(prof, progress=False)  # weights load on first use, once for every role
        samples = {s: judge_cards.sample(human_sets.load(s, folder), max_pairs) for s in set_ids}
        measured, cosine = _judges(judges)
        variants = {"entailment": _similarity_variants(judges)}
        given: dict[str, tuple[str, list]] = {}
        if llm_pairs:  # slow: on its own, smaller sample of each set
            support, judge = _llm_support(judges)
            given["llm-support"] = (
                judge,
                [
                    judge_cards.entailment_figure(s, judge_cards.sample(p, llm_pairs), support, 0.5, cosine)
                    for s, p in samples.items()
                ],
            )
        if argument_items:
            given |= _argument_figures(judges, argument_ids, argument_items, folder)
        if exam_grades and exam_bank:
            given |= _answerability_figures(
                judges, Path(exam_grades), Path(exam_bank), exam_grader, exam_licence
            )
        card = judge_cards.measure(prof, measured, samples, cosine, roles(), figures=given, variants=variants)
    options = {**asked, "judge_profile": prof.id if isinstance(profile, JudgeProfile) else profile}
    card = card.model_copy(update={"command": judge_cards.command_line(options)})
    write_card(card, target)
    return card, target


def _answerability_figures(judges, grades: Path, bank: Path, grader: str | None, licence: str):  # type: ignore[no-untyped-def]
    """(judge, figures) for the roles a family answers questions from passages for."""
    from benchmark.families import REGISTRY
    from benchmark.families.base import hook
    from benchmark.metaeval import judge_cards

    out = {}
    for role in roles():
        for family in REGISTRY.values():
            answer = hook(family, "answer_for_card")
            got = answer(role, judges, grades, bank, grader=grader) if answer else None
            if got is not None:
                figure = judge_cards.answerability_figure(grades.name, got, licence)
                out[role] = (judge_cards.judge_name(judges.profile, role), [figure])
                break
    return out


def _set_ids(value: str | Sequence[str], flag: str, role: str) -> list[str]:
    """The set ids a flag names (a list, or comma-separated), each a known set of ``role``."""
    from benchmark.metaeval import human_sets

    named = value.split(",") if isinstance(value, str) else value
    ids = [s.strip() for s in named if s.strip()]
    fit = [k for k, v in human_sets.SETS.items() if v.role == role]
    for set_id in ids:
        if set_id not in fit:
            raise InputError.at(flag, f"no public {role} set {set_id!r}; known: {', '.join(fit)}")
    return ids


def _argument_figures(judges, set_ids: list[str], sample_size: int, data_dir: Path | None):  # type: ignore[no-untyped-def]
    """(judge, figures) for the roles a family rates standalone texts for, on preference pairs."""
    from benchmark.families import REGISTRY
    from benchmark.families.base import hook
    from benchmark.metaeval import human_sets, judge_cards

    out = {}
    for role in roles():
        for f in REGISTRY.values():
            if any(role in rs for rs in f.judged_by.values()) and (rate := hook(f, "rate_for_card")):
                break
        else:
            continue
        figures = [
            judge_cards.argument_figure(
                set_id,
                judge_cards.sample_arguments(human_sets.load(set_id, data_dir), sample_size),
                lambda items, r=role, rate=rate: rate(r, judges, items) or [],
            )
            for set_id in set_ids
            if human_sets.SETS[set_id].role == role
        ]
        if figures:
            judge = judge_cards.judge_name(judges.profile, role)
            out[role] = (f"{judge} (overall quality, default quality judge, no evidence)", figures)
    return out


def _judges(judges):  # type: ignore[no-untyped-def]
    """The profile's entailment scorer, and the plain-cosine baseline (its embedder)."""
    import numpy as np

    from benchmark.metaeval import judge_cards
    from benchmark.models.embeddings import Embedder

    prof = judges.profile
    name = judge_cards.judge_name(prof, "entailment")
    measured = {"entailment": (judges.entailment.support_scores, prof.entailment.threshold, name)}
    embedder = Embedder(prof.embedder, cache=judges.cache)

    def cosine(pairs: list[tuple[str, str]]) -> list[float]:
        a = embedder.encode([p for p, _ in pairs])
        b = embedder.encode([h for _, h in pairs])
        na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        return [float(x) for x in (a * b).sum(axis=1) / np.maximum(na * nb, 1e-12)]

    return measured, cosine


def _similarity_variants(judges):  # type: ignore[no-untyped-def]
    """The offline stand-in's other settings on the same pairs (none for an NLI or LLM judge)."""
    from benchmark.metaeval import judge_cards
    from benchmark.models.entailment import SimilarityEntailment

    spec = judges.profile.entailment
    if spec.kind != "embedding-similarity":
        return {}
    out = {}
    for windows in sorted({0, spec.windows or 2}):
        for guards in (False, True):
            if (windows, guards) in ((spec.windows, spec.guards), (0, False)):  # the judge; plain cosine
                continue
            other = spec.model_copy(update={"windows": windows, "guards": guards})
            out[judge_cards.similarity_setting(windows, guards)] = SimilarityEntailment(
                other, judges.profile.embedder.model, judges.cache
            ).support_scores
    return out


def _llm_support(judges):  # type: ignore[no-untyped-def]
    """The profile's LLM as a yes/no support judge (DecompScore's), and its name."""
    from benchmark.models.entailment import LLMEntailment

    llm = LLMEntailment(EntailmentSpec(kind="llm", threshold=0.5, model=judges.profile.llm.model), judges.llm)
    return llm.support_scores, f"LLM yes/no (entailment@1): {judges.profile.llm.model}"
