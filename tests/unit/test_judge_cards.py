"""Judge cards: public sets read at pinned checksums, figures next to trivial baselines, a
verdict in plain words, and every board showing the card of its main-score judge.

The sets are small local copies written here in the public files' own formats (the real
ones are fetched at pinned commits by ``benchmark judge-card``); the entailment judge is the
offline profile's real one (MiniLM, shipped by a PyPI package)."""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

import numpy as np
import pytest

from benchmark.core.errors import InputError
from benchmark.metaeval import human_sets, judge_cards
from benchmark.metaeval.human_sets import Pair
from benchmark.models import cards

SICK_HEAD = "pair_ID\tsentence_A\tsentence_B\tentailment_label\trelatedness_score\tentailment_AB\tentailment_BA\tsentence_A_original\tsentence_B_original\tsentence_A_dataset\tsentence_B_dataset\tSemEval_set"
ROWS = [  # (premise, hypothesis, entailed)
    ("A man is playing a guitar on the stage", "A man is playing a guitar", True),
    ("A woman is slicing an onion in the kitchen", "A woman is cutting an onion", True),
    ("Two dogs are running through a grassy field", "Two dogs are running outside", True),
    ("A child is riding a red bicycle down the street", "A child is riding a bicycle", True),
    ("A chef is cooking pasta in a large pot", "A chef is cooking food", True),
    ("The cat is sleeping on the sofa", "A dog is barking at the mailman", False),
    ("A boy is kicking a football in the park", "A woman is reading a newspaper on a train", False),
    ("Three people are hiking up a snowy mountain", "A man is swimming in a pool", False),
    ("A girl is painting a picture of a house", "An old man is fixing a car engine", False),
    ("A band is performing music at a festival", "A baby is sleeping in a crib", False),
]


ARGUMENT_PAIRS = [
    (
        "Uniforms save parents money because they cost less than a wardrobe of fashionable clothes.",
        "uniforms r bad",
    ),
    ("Uniforms reduce bullying about brands, since every pupil wears the same clothes.", "no"),
    ("A uniform stops pupils from expressing who they are, and that matters at school age.", "i hate it"),
    ("Uniforms are uncomfortable in summer and schools rarely let pupils adapt them.", "meh whatever"),
]


def _local_copies(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Small files in SICK's and RTE's formats, with the sets' checksums pinned to them."""
    sick = [SICK_HEAD] + [
        f"{i}\t{p}\t{h}\t{'ENTAILMENT' if y else 'NEUTRAL'}\t3.0\tx\tx\t{p}\t{h}\tFLICKR\tFLICKR\t{'TEST' if i % 5 else 'TRAIN'}"
        for i, (p, h, y) in enumerate(ROWS * 3, start=1)
    ]
    rte = ["index\tsentence1\tsentence2\tlabel"] + [
        f"{i}\t{p}\t{h}\t{'entailment' if y else 'not_entailment'}" for i, (p, h, y) in enumerate(ROWS)
    ]
    uniform = [  # UKPConvArg2's format: pair id, labels, more convincing, less convincing
        f"a{i}_b{i}\to{i}_1\t{better}\t{worse}" for i, (better, worse) in enumerate(ARGUMENT_PAIRS)
    ]
    sets = {}
    for set_id, files in (
        ("sick", [sick]),
        ("rte", [rte]),
        ("ukpconvarg2", [uniform[:2], uniform[2:]]),
    ):
        hs = human_sets.SETS[set_id]
        pinned = []
        for (repo_path, _), lines in zip(hs.files, files, strict=True):
            path = root / set_id / Path(repo_path).name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            pinned.append((repo_path, hashlib.sha256(path.read_bytes()).hexdigest()))
        sets[set_id] = human_sets.HumanSet(**{**hs.__dict__, "files": tuple(pinned)})
    monkeypatch.setattr(human_sets, "SETS", sets)
    return root


def test_sets_are_read_in_their_formats_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _local_copies(tmp_path / "sets", monkeypatch)
    sick = human_sets.load("sick", root)
    assert len(sick) == 24 and all(isinstance(p, Pair) for p in sick)  # TEST rows only
    assert sum(p.label for p in sick) == 12
    assert len(human_sets.load("rte", root)) == 10
    uniform = human_sets.load("ukpconvarg2", root)
    assert [p.stance for p in uniform] == ["con", "con", "pro", "pro"]  # from the file names
    assert uniform[0].better.startswith("Uniforms save") and uniform[0].topic == human_sets.UNIFORM
    (root / "rte" / "dev.tsv").write_text("index\tsentence1\tsentence2\tlabel\n1\ta\tb\tentailment\n")
    with pytest.raises(InputError, match=r"dev.tsv.*SHA-256.*not the pinned"):
        human_sets.load("rte", root)
    with pytest.raises(InputError, match="no copy of"):
        human_sets.load("sick", tmp_path / "empty")
    with pytest.raises(InputError, match="no public set 'snli'"):
        human_sets.load("snli", root)


def _pairs() -> list[Pair]:
    return [Pair(p, h, int(y)) for p, h, y in ROWS * 4]


def _blind_text_pairs() -> list[Pair]:
    """Every text twice, once per label: no baseline that reads the texts can rank them."""
    return [Pair(p, h, y) for p, h, _ in ROWS * 2 for y in (0, 1)]


def test_a_perfect_judge_is_informative_a_blind_one_at_chance() -> None:
    pairs = _blind_text_pairs()
    perfect = judge_cards.entailment_figure("sick", pairs, lambda ps: [float(p.label) for p in pairs], 0.5)
    assert (
        perfect.value == 1.0 and perfect.verdict == "informative" and perfect.ci_low and perfect.ci_low > 0.9
    )
    assert perfect.extra["accuracy"] == 1.0 and perfect.extra["majority-class accuracy"] == 0.5
    # a perfect judge on pairs word overlap separates as well is no better than word overlap
    pairs = _pairs()
    tied = judge_cards.entailment_figure("sick", pairs, lambda ps: [float(p.label) for p in pairs], 0.5)
    assert tied.value == 1.0 and tied.baselines["word overlap"] == 1.0
    assert tied.verdict == "no better than a baseline" and "word overlap" in (tied.why or "")
    rng = np.random.default_rng(0)
    blind = judge_cards.entailment_figure("sick", pairs, lambda ps: list(rng.random(len(ps))), 0.5)
    assert blind.verdict == "at chance" and blind.ci_low is not None and blind.ci_low <= 0.5
    # a judge that ranks worse than word overlap (which separates these pairs well)
    noisy = [float(p.label) * 0.3 + float(rng.random()) for p in pairs]
    worse = judge_cards.entailment_figure("sick", pairs, lambda ps: noisy, 0.5)
    assert worse.baselines["word overlap"] is not None and worse.baselines["word overlap"] > 0.9
    assert worse.verdict in ("below a baseline", "at chance")
    # a pair the judge could not score is left out and counted, never scored 0
    failing = judge_cards.entailment_figure(
        "sick", pairs, lambda ps: [None] + [float(p.label) for p in pairs[1:]], 0.5
    )
    assert failing.n == len(pairs) - 1 and failing.extra["failed"] == 1.0


def test_judge_card_cli_writes_a_card_the_boards_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real offline entailment judge on the local copies: the card's file, its table,
    and the published boards printing its lines (and a banner where it fails)."""
    from benchmark.board.leaderboard import build_leaderboard
    from benchmark.board.render import print_leaderboard, to_markdown
    from benchmark.cli.main import main

    root = _local_copies(tmp_path / "sets", monkeypatch)
    folder = tmp_path / "cards"
    out = folder / "offline-smollm2-minilm-sim-v6.yaml"
    assert main(["judge-card", "--data-dir", str(root), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    card = cards.JudgeCard.model_validate(__import__("yaml").safe_load(out.read_text()))
    assert card.command is not None and f"--data-dir {root}" in card.command  # every option as given
    entail = card.role("entailment")
    assert entail is not None and [f.set for f in entail.figures] == ["sick", "rte"]
    assert entail.figures[0].n == 24 and set(entail.figures[0].baselines) == {
        "word overlap",
        "hypothesis length",
        "plain cosine",
    }
    # the offline stand-in's other settings, on the same items, so the card shows what the profile keeps
    assert {k for k in entail.figures[0].extra if k.startswith("ROC AUC, ")} == {
        "ROC AUC, whole premise, guards on",
        "ROC AUC, windows of 1-2 sentences, guards off",
    }
    assert "(windows of 1-2 sentences, guards on)" in entail.judge
    assert card.role("argument-quality").verdict == "not measured here"  # type: ignore[union-attr]
    assert "Judge card: offline-smollm2-minilm-sim@6" in printed and "ROC AUC" in printed

    # the boards read the card of their profile: at chance -> a banner in plain words
    bad = card.model_copy(
        update={
            "roles": [
                r.model_copy(
                    update={
                        "verdict": "at chance",
                        "figures": [f.model_copy(update={"verdict": "at chance"}) for f in r.figures],
                    }
                )
                if r.role == "entailment"
                else r
                for r in card.roles
            ]
        }
    )
    cards.write_card(bad, out)
    monkeypatch.setattr(cards, "CARDS_DIR", folder)
    cards.load_card.cache_clear()
    repo = Path(__file__).resolve().parents[2]
    lb = build_leaderboard(repo / "leaderboard" / "results", repo / "submissions")
    from rich.console import Console

    console = Console(width=300, record=True)
    print_leaderboard(lb, console)
    text = console.export_text()
    assert (
        "Warning: ICAT-M under offline-smollm2-minilm-sim@6 relies on its entailment judge, which is at chance"
        in text
    )
    assert "Judge card (offline-smollm2-minilm-sim@6, ICAT-M): entailment" in text
    assert "exam-answerer" in text and "not measured here" in text
    md = to_markdown(lb)
    assert "> **Warning: ICAT-M under offline-smollm2-minilm-sim@6" in md
    cards.load_card.cache_clear()


def test_not_measured_card_names_every_role_and_why(tmp_path: Path) -> None:
    from benchmark.cli.main import main

    out = tmp_path / "paper.yaml"
    reason = "its models (DeBERTa-v3 NLI, Llama-3.1) could not be downloaded where this card was written"
    assert (
        main(
            [
                "judge-card",
                "--judge-profile",
                "paper-deberta-llama",
                "--not-measured",
                reason,
                "--out",
                str(out),
            ]
        )
        == 0
    )
    card = cards.JudgeCard.model_validate(__import__("yaml").safe_load(out.read_text()))
    assert card.profile.startswith("paper-deberta-llama@")
    assert {r.role for r in card.roles} >= {"entailment", "argument-quality", "exam-answerer", "llm-support"}
    assert all(r.verdict == "not measured here" and r.reason and reason in r.reason for r in card.roles)


def test_the_llm_judge_sees_only_its_own_smaller_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--llm-pairs N: the (slow) LLM support judge is asked about N pairs per set, never all
    of them, while the entailment judge sees every pair."""
    from benchmark.cli.main import main

    judge_card = importlib.import_module("benchmark.api.judge_card")  # the module, not its function

    root = _local_copies(tmp_path / "sets", monkeypatch)
    seen: dict[str, int] = {"entailment": 0, "llm-support": 0}

    def scorer(role: str):  # type: ignore[no-untyped-def]
        def support(pairs: list[tuple[str, str]]) -> list[float | None]:
            seen[role] += len(pairs)
            return [float(len(set(p.split()) & set(h.split())) > 2) for p, h in pairs]

        return support

    def fake_judges(judges):  # type: ignore[no-untyped-def]
        return {"entailment": (scorer("entailment"), 0.5, "fake")}, lambda pairs: [0.5] * len(pairs)

    monkeypatch.setattr(judge_card, "_judges", fake_judges)
    monkeypatch.setattr(judge_card, "_llm_support", lambda judges: (scorer("llm-support"), "fake LLM"))
    out = tmp_path / "card.yaml"
    assert main(["judge-card", "--data-dir", str(root), "--llm-pairs", "12", "--out", str(out)]) == 0
    assert seen == {"entailment": 24 + 10, "llm-support": 12 + 10}  # rte has only 10 pairs
    card = cards.JudgeCard.model_validate(__import__("yaml").safe_load(out.read_text()))
    assert [f.n for f in card.role("llm-support").figures] == [12, 10]  # type: ignore[union-attr]


def test_argument_figure_orders_pairs_and_counts_what_it_leaves_out() -> None:
    from benchmark.metaeval.human_sets import UNIFORM, ArgumentPair
    from benchmark.models.example_copies import COPY_ERROR

    pairs = [ArgumentPair(UNIFORM, "pro", b, w) for b, w in ARGUMENT_PAIRS]

    def rate(items):  # type: ignore[no-untyped-def]
        out = []
        for _, _, text in items:
            if text == "no":
                out.append((None, [f"quality: {COPY_ERROR} (the whole reply)"]))
            else:
                out.append((3.0 if len(text.split()) > 5 else 2.0 if "hate" in text else 1.0, []))
        return out

    fig = judge_cards.argument_figure("ukpconvarg2", pairs, rate)
    assert fig.n == 3 and fig.extra["pairs left out (an argument unrated)"] == 1.0
    assert fig.extra["replies refused as example copies"] == 1.0
    assert fig.value == 1.0 and fig.baselines["longer argument"] == 1.0
    assert (
        fig.verdict == "at chance" and fig.ci_low is not None and fig.ci_low < 0.5
    )  # 3 of 3: exact interval
    same = judge_cards.argument_figure("ukpconvarg2", pairs, lambda items: [(2.0, [])] * len(items))
    assert same.value == 0.5 and same.extra["ties"] == 4.0 and same.verdict == "at chance"
    assert same.extra["share with the commonest rating"] == 1.0
    assert same.extra[judge_cards.MATCH_SHARE] == 0.0 and judge_cards.flags([fig, same]) == []


def test_a_judge_that_mostly_echoes_its_example_is_flagged() -> None:
    """Ratings equal to the worked example's with fresh wording are allowed one by one, but a
    judge whose ratings mostly are is flagged on its card, in the line boards show."""
    from benchmark.metaeval.human_sets import UNIFORM, ArgumentPair

    pairs = [ArgumentPair(UNIFORM, "pro", b, w) for b, w in ARGUMENT_PAIRS]
    texts = sorted({t for p in pairs for t in (p.better, p.worse)})
    echoing = {t for t in texts[: len(texts) // 2 + 1]}  # just over half

    def rate(items):  # type: ignore[no-untyped-def]
        return [(float(len(t)), [], int(t in echoing)) for _, _, t in items]

    fig = judge_cards.argument_figure("ukpconvarg2", pairs, rate)
    assert fig.extra[judge_cards.MATCH_SHARE] == len(echoing) / len(texts)
    (flag,) = judge_cards.flags([fig])
    assert "worked example" in flag and "UKPConvArg2" in flag
    role = cards.RoleCard(
        role="argument-quality", judge="j", verdict=fig.verdict, figures=[fig], flags=[flag]
    )
    assert role.line().endswith(f"Flag: {flag}.")
    fewer = judge_cards.argument_figure(
        "ukpconvarg2", pairs, lambda items: [(float(len(t)), [], int(t == texts[0])) for _, _, t in items]
    )
    assert judge_cards.flags([fewer]) == []


def test_the_argument_family_rates_for_the_card_and_refuses_copies() -> None:
    """The family's own judge rates standalone arguments; a reply that is its prompt's
    worked example is refused (retried, then a failure), not a rating."""
    from benchmark.families import REGISTRY
    from benchmark.families.base import hook
    from benchmark.models.prompts import load_prompt
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    example = load_prompt("argument-quality-listwise@1").examples[0][1]
    own = example.replace('"overall_quality": 2', '"overall_quality": 3').replace(
        '"cogency": 1', '"cogency": 3'
    )

    def reply(messages):  # type: ignore[no-untyped-def]
        return example if "copy me" in messages[-1]["content"] or "copy me" in str(messages) else own

    judges = fake_stack(llm=FakeLLM(reply), entailment=FakeEntailment({}), retriever=FakeRetriever({}))
    rate = next(found for f in REGISTRY.values() if (found := hook(f, "rate_for_card")))
    assert rate("entailment", judges, []) is None
    rated = rate(
        "argument-quality",
        judges,
        [("Uniforms?", "pro", "Uniforms are cheap."), ("Uniforms?", "pro", "copy me")],
    )
    assert rated is not None and rated[0][0] == 3.0 and rated[0][1] == []
    assert rated[1][0] is None and any("worked example" in f for f in rated[1][1])


def test_a_partial_copy_is_not_salvaged_into_a_rating() -> None:
    """The argument judge salvages the parts of an incomplete reply; never those of a reply
    refused as the worked example (fourteen of its fifteen ratings)."""
    import json

    from benchmark.families import REGISTRY
    from benchmark.families.base import hook
    from benchmark.models.prompts import load_prompt
    from tests.helpers.fakes import FakeEntailment, FakeLLM, FakeRetriever, fake_stack

    partial = json.loads(load_prompt("argument-quality-listwise@1").examples[0][1])
    partial.pop("appropriateness")
    judges = fake_stack(
        llm=FakeLLM(lambda _m: json.dumps(partial)),
        entailment=FakeEntailment({}),
        retriever=FakeRetriever({}),
    )
    rate = next(found for f in REGISTRY.values() if (found := hook(f, "rate_for_card")))
    ((rating, failures, matches),) = rate("argument-quality", judges, [("Uniforms?", "pro", "Cheap.")]) or []
    assert matches == 0
    assert rating is None and any("worked example" in f for f in failures)


def _hub_copies(root: Path) -> Path:
    """Small local copies of the Hub sets, in their columns (parquet and JSON lines)."""
    import pandas as pd

    anli = [
        {"uid": str(i), "premise": p, "hypothesis": h, "label": 0 if y else 1 + i % 2, "reason": ""}
        for i, (p, h, y) in enumerate(ROWS)
    ]
    for n, split in enumerate(("test_r1", "test_r2", "test_r3")):
        (root / "anli").mkdir(parents=True, exist_ok=True)
        pd.DataFrame(anli[n::3]).to_parquet(root / "anli" / f"{split}.parquet")
    (root / "llm-aggrefact").mkdir(parents=True)
    pd.DataFrame(
        [{"dataset": "RAGTruth", "doc": p, "claim": h, "label": int(y)} for p, h, y in ROWS]
    ).to_json(root / "llm-aggrefact" / "test.jsonl", orient="records", lines=True)
    argq = [  # topic, stance_WA, WA, argument
        (
            "Ban smoking",
            1,
            0.9,
            "Smoking harms bystanders through second-hand smoke, so a ban protects them.",
        ),
        ("Ban smoking", 1, 0.4, "smoking is gross"),
        ("Ban smoking", 1, 0.7, "A ban lowers health costs."),
        ("Ban smoking", -1, 0.8, "Adults should decide for themselves what risks they take."),
        ("Ban smoking", -1, 0.3, "no ban"),
    ]
    (root / "argq-30k").mkdir(parents=True)
    pd.DataFrame(
        [
            {
                "argument": a,
                "topic": t,
                "set": "test",
                "WA": w,
                "MACE-P": w,
                "stance_WA": s,
                "stance_WA_conf": 1.0,
            }
            for t, s, w, a in argq
        ]
    ).to_parquet(root / "argq-30k" / "test.parquet")
    return root


def test_hub_sets_read_from_local_copies_in_their_columns(tmp_path: Path) -> None:
    root = _hub_copies(tmp_path / "sets")
    anli = human_sets.load("anli", root)
    assert len(anli) == len(ROWS) and sum(p.label for p in anli) == sum(y for _, _, y in ROWS)
    aggre = human_sets.load("llm-aggrefact", root)
    assert [p.label for p in aggre] == [int(y) for _, _, y in ROWS] and aggre[0].premise == ROWS[0][0]
    argq = human_sets.load("argq-30k", root)
    # within one topic and stance, 0.3 apart or more: pro 0.9>0.4, 0.7>0.4; con 0.8>0.3 (0.9 vs 0.7 is too close)
    assert [(p.stance, p.better[:12], p.worse[:12]) for p in argq] == [
        ("con", "Adults shoul", "no ban"),
        ("pro", "Smoking harm", "smoking is g"),
        ("pro", "A ban lowers", "smoking is g"),
    ]
    (root / "anli" / "test_r2.parquet").unlink()
    with pytest.raises(
        InputError, match=r"test_r2.parquet.*no copy of ANLI.*facebook/anli at revision 8e4813d"
    ):
        human_sets.load("anli", root)


def test_hub_sets_load_at_their_pinned_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    """Online, ``datasets`` reads each split at the pinned commit; a set with none pinned
    records the commit the Hub resolved, and the card names it."""
    import datasets
    import huggingface_hub

    calls = []

    class Rows:
        def __init__(self, rows):  # type: ignore[no-untyped-def]
            self.rows = rows

        def to_list(self):  # type: ignore[no-untyped-def]
            return self.rows

    def load_dataset(repo, config, split, revision, token, cache_dir):  # type: ignore[no-untyped-def]
        calls.append((repo, config, split, revision))
        return Rows([{"premise": "a b", "hypothesis": "a", "label": 0, "doc": "a b", "claim": "a"}])

    class Api:
        def dataset_info(self, repo, token=None):  # type: ignore[no-untyped-def]
            return type("Info", (), {"sha": "0123456789abcdef0123"})()

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    monkeypatch.setattr(huggingface_hub, "HfApi", Api)
    assert len(human_sets.load("anli")) == 3
    assert calls == [
        ("facebook/anli", None, s, "8e4813d81f46d313dac7892e1c28076917cfcdf9")
        for s in ("test_r1", "test_r2", "test_r3")
    ]
    human_sets.load("llm-aggrefact")
    assert calls[-1] == ("lytang/LLM-AggreFact", None, "test", "0123456789abcdef0123")
    assert human_sets.SETS["llm-aggrefact"].source == "hf:lytang/LLM-AggreFact@0123456789ab"
    fig = judge_cards.entailment_figure("anli", _pairs(), lambda ps: [float(p.label) for p in _pairs()], 0.5)
    assert fig.source == "hf:facebook/anli@8e4813d81f46"


def test_an_unreachable_hub_set_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError, match=r"hf:lytang/LLM-AggreFact.*gated.*HF_TOKEN.*--data-dir"):
        human_sets.load("llm-aggrefact")


def test_an_unknown_set_name_is_an_error_for_either_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmark.cli.main import main

    out = str(tmp_path / "c.yaml")
    assert main(["judge-card", "--argument-sets", "sick", "--not-measured", "x", "--out", out]) != 0
    assert "--argument-sets: no public argument-quality set 'sick'; known: ukpconvarg2, argq-30k" in (
        capsys.readouterr().err
    )
    assert main(["judge-card", "--sets", "snli", "--not-measured", "x", "--out", out]) != 0
    assert "--sets: no public entailment set 'snli'" in capsys.readouterr().err
    assert main(["judge-card", "--exam-grades", "g.jsonl", "--not-measured", "x", "--out", out]) != 0
    assert "--exam-bank: --exam-grades needs the question bank" in capsys.readouterr().err
    assert not Path(out).exists()
