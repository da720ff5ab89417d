"""``benchmark judge-card``: measure a profile's judges on public human labels; write its card."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchmark.cli import add_command
from benchmark.core import paths
from benchmark.core.errors import InputError, Problem
from benchmark.models.profiles import DEFAULT_PROFILE


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub,
        "judge-card",
        help="measure a judge profile's judges on public human-labelled sets; write its judge card",
        description=(
            "Runs each judge of the profile that can be measured on public human-labelled sets (fetched at "
            "pinned commits and checked against their SHA-256, or read from --data-dir), next to trivial "
            "baselines on the same items (majority class, hypothesis length, word overlap, plain cosine), "
            "and writes a versioned card: per role, per set, the figure with a 95%% bootstrap interval and a "
            "verdict (informative / at chance / below a baseline / not measured here). Boards, `benchmark "
            "leaderboard` and the Space show the card's line for the judge each main score depends on."
        ),
        examples=[
            "benchmark judge-card --judge-profile offline-smollm2-minilm-sim",
            "benchmark judge-card --judge-profile offline-smollm2-minilm-sim --data-dir ./human-sets --llm-pairs 200",
            "benchmark judge-card --judge-profile paper-deberta-llama --not-measured 'its models were not "
            "available where this card was written'",
        ],
    )
    p.add_argument(
        "--judge-profile", default=DEFAULT_PROFILE, help=f"profile name or YAML ({DEFAULT_PROFILE})"
    )
    p.add_argument(
        "--sets",
        default="sick,rte",
        help="public entailment sets to measure on (default sick,rte; also anli, llm-aggrefact from the Hub)",
    )
    p.add_argument(
        "--argument-sets",
        default="ukpconvarg2",
        help="public argument-preference sets (default ukpconvarg2; also argq-30k from the Hub)",
    )
    p.add_argument("--data-dir", help="local copies of the sets (<dir>/<set>/<file>) instead of downloading")
    p.add_argument("--max-pairs", type=int, help="a seeded sample of each set (default: all of it)")
    p.add_argument(
        "--llm-pairs",
        type=int,
        default=0,
        help="also measure the LLM as a yes/no support judge (DecompScore's) on a seeded sample of this "
        "many pairs per set (slow on CPU; default 0: not measured)",
    )
    p.add_argument(
        "--argument-items",
        type=int,
        default=0,
        help="also measure the argument-quality judge on UKPConvArg2's preference pairs among a seeded "
        "sample of this many arguments (its LLM rates each once; slow on CPU; default 0: not measured)",
    )
    p.add_argument(
        "--exam-grades",
        metavar="FILE",
        help="measure the exam answerer on every judged passage (a relevance grade; ranked by a system or "
        "not) of this EXAM++ graded-paragraph file, with --exam-bank: answerability against relevance",
    )
    p.add_argument("--exam-bank", metavar="FILE", help="the EXAM++ question bank of --exam-grades")
    p.add_argument(
        "--exam-grader",
        metavar="NAME",
        help="the grader of --exam-grades whose answers the card compares with (needed when the file has "
        "several: a model, prompt class or question set that fits one of them)",
    )
    p.add_argument(
        "--exam-licence",
        default="as its owner licenses it",
        help="the licence of --exam-grades, written on the card",
    )
    p.add_argument(
        "--not-measured",
        metavar="REASON",
        help="load no model: write every role as 'not measured here', for this reason",
    )
    p.add_argument(
        "--out",
        help="card file (default: <profile>-v<version>.yaml in the current folder; a shipped card is "
        "replaced only when --out names it)",
    )
    p.set_defaults(func=run)


def roles() -> list[str]:
    """Every judge role a registered family's scores depend on."""
    from benchmark.families import REGISTRY

    return sorted({r for fam in REGISTRY.values() for rs in fam.judged_by.values() for r in rs})


def run(args: argparse.Namespace) -> int:
    from benchmark.metaeval import human_sets, judge_cards
    from benchmark.models.cards import write_card
    from benchmark.models.profiles import load_profile

    prof = load_profile(args.judge_profile)
    out = paths.check_writable_file(args.out if args.out else judge_cards.default_out(prof.id), "--out")
    if args.max_pairs is not None and args.max_pairs < 10:
        raise InputError(Problem("--max-pairs", "at least 10 pairs per set, or leave it out for all"))
    set_ids = _set_ids(args.sets, "--sets", "entailment")
    _set_ids(args.argument_sets, "--argument-sets", "argument-quality")
    if args.exam_grades and not args.exam_bank:
        raise InputError(Problem("--exam-bank", "--exam-grades needs the question bank its grades refer to"))
    data_dir = Path(args.data_dir) if args.data_dir else None
    if args.not_measured:
        card = judge_cards.measure(prof, {}, {}, None, roles())
        card = card.model_copy(
            update={
                "roles": [
                    r.model_copy(
                        update={
                            "reason": f"{args.not_measured}; {r.reason}" if r.reason else args.not_measured
                        }
                    )
                    for r in card.roles
                ]
            }
        )
    else:
        from benchmark.judging.stack import JudgeStack

        judges = JudgeStack.load(prof, progress=False)  # weights load on first use, once for every role
        sets = {s: judge_cards.sample(human_sets.load(s, data_dir), args.max_pairs) for s in set_ids}
        measured, cosine = _judges(judges)
        variants = {"entailment": _similarity_variants(judges)}
        given: dict[str, tuple[str, list]] = {}
        if args.llm_pairs:  # slow: on its own, smaller sample of each set
            support, judge = _llm_support(judges)
            given["llm-support"] = (
                judge,
                [
                    judge_cards.entailment_figure(
                        s, judge_cards.sample(p, args.llm_pairs), support, 0.5, cosine
                    )
                    for s, p in sets.items()
                ],
            )
        if args.argument_items:
            given |= _argument_figures(judges, args, data_dir)
        if args.exam_grades:
            given |= _answerability_figures(judges, args)
        card = judge_cards.measure(prof, measured, sets, cosine, roles(), figures=given, variants=variants)
    write_card(card.model_copy(update={"command": judge_cards.command_line(vars(args))}), out)
    _print(card)
    Console(stderr=True).print(f"wrote {out}")
    return 0


def _answerability_figures(judges, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """(judge, figures) for the roles a family answers questions from passages for."""
    from benchmark.families import REGISTRY
    from benchmark.metaeval import judge_cards

    out = {}
    for role in roles():
        for family in REGISTRY.values():
            got = family.answer_for_card(
                role, judges, Path(args.exam_grades), Path(args.exam_bank), grader=args.exam_grader
            )
            if got is not None:
                figure = judge_cards.answerability_figure(Path(args.exam_grades).name, got, args.exam_licence)
                out[role] = (judge_cards.judge_name(judges.profile, role), [figure])
                break
    return out


def _set_ids(value: str, flag: str, role: str) -> list[str]:
    """The set ids a flag names; an unknown one, or one for another role, is an error."""
    from benchmark.metaeval import human_sets

    ids = [s.strip() for s in value.split(",") if s.strip()]
    fit = [k for k, v in human_sets.SETS.items() if v.role == role]
    for set_id in ids:
        if set_id not in fit:
            raise InputError(Problem(flag, f"no public {role} set {set_id!r}; known: {', '.join(fit)}"))
    return ids


def _argument_figures(judges, args: argparse.Namespace, data_dir: Path | None):  # type: ignore[no-untyped-def]
    """(judge, figures) for the roles a family rates standalone texts for (argument quality),
    on preference pairs."""
    from benchmark.families import REGISTRY, MetricFamily
    from benchmark.metaeval import human_sets, judge_cards

    out = {}
    for role in roles():
        family = next(
            (
                f
                for f in REGISTRY.values()
                if type(f).rate_for_card is not MetricFamily.rate_for_card
                and any(role in rs for rs in f.judged_by.values())
            ),
            None,
        )
        if family is None:
            continue
        figures = []
        for set_id in _set_ids(args.argument_sets, "--argument-sets", "argument-quality"):
            if human_sets.SETS[set_id].role != role:
                continue
            pairs = judge_cards.sample_arguments(human_sets.load(set_id, data_dir), args.argument_items)
            figures.append(
                judge_cards.argument_figure(
                    set_id, pairs, lambda items, f=family, r=role: f.rate_for_card(r, judges, items) or []
                )
            )
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
    measured = {
        "entailment": (
            judges.entailment.support_scores,
            prof.entailment.threshold,
            judge_cards.judge_name(prof, "entailment"),
        )
    }
    embedder = Embedder(prof.embedder, cache=judges.cache)

    def cosine(pairs: list[tuple[str, str]]) -> list[float]:
        a = embedder.encode([p for p, _ in pairs])
        b = embedder.encode([h for _, h in pairs])
        na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
        return [float(x) for x in (a * b).sum(axis=1) / np.maximum(na * nb, 1e-12)]

    return measured, cosine


def _similarity_variants(judges):  # type: ignore[no-untyped-def]
    """The offline stand-in's other settings (windows and guards on or off), scored on the
    same pairs, so the card shows whether the profile keeps the best; none for a real NLI
    or LLM judge."""
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
    from benchmark.models.profiles import EntailmentSpec

    llm = LLMEntailment(EntailmentSpec(kind="llm", threshold=0.5, model=judges.profile.llm.model), judges.llm)
    return llm.support_scores, f"LLM yes/no (entailment@1): {judges.profile.llm.model}"


def _print(card) -> None:  # type: ignore[no-untyped-def]
    from benchmark.models.cards import best_baseline

    table = Table(title=Text(f"Judge card: {card.profile} (measured {card.created})"))
    for col in ("role", "judge", "set", "n", "figure", "95% CI", "best baseline", "verdict"):
        table.add_column(col, justify="right" if col in ("n", "figure") else "left")
    for r in card.roles:
        if not r.figures:
            table.add_row(r.role, Text(r.judge), "—", "—", "—", "—", "—", r.verdict)
        for f in r.figures:
            best = best_baseline(f.baselines)
            table.add_row(
                r.role,
                Text(r.judge),
                f.title,
                f"{f.n:,}",
                "—" if f.value is None else f"{f.metric} {f.value:.3f}",
                "—" if f.ci_low is None else f"[{f.ci_low:.3f}, {f.ci_high:.3f}]",
                "—" if best is None else f"{best[0]} {best[1]:.3f}",
                f.verdict,
            )
    Console().print(table)
