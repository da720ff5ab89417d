"""Entailment backends on real models: a tiny NLI model built here, and MiniLM."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from benchmark.models.cache import ModelCallCache
from benchmark.models.entailment import NLIEntailment, SimilarityEntailment
from benchmark.models.profiles import EntailmentSpec, load_profile

pytestmark = pytest.mark.slow
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "entailment_pairs.jsonl"
SEED = 0


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random-weight BERT NLI classifier with a locally trained WordPiece tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    out = tmp_path_factory.mktemp("tiny-nli")
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = [json.loads(line)["premise"] for line in FIXTURE.read_text().splitlines()]
    tok.train_from_iterator(
        corpus,
        trainers.WordPieceTrainer(
            vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        ),
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    fast.save_pretrained(out)
    config = BertConfig(
        vocab_size=fast.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=3,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2},
    )
    torch.manual_seed(SEED)  # weights whose scores the old batched path moved (the NLI test below)
    BertForSequenceClassification(config).save_pretrained(out)
    return out


def test_nli_backend_batches_scores_and_caches(tiny_nli: Path, tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "c.sqlite")
    model = NLIEntailment(EntailmentSpec(kind="nli", model=str(tiny_nli), batch_size=3, max_length=64), cache)
    pairs = [
        ("The cat sat on the mat. " * 20, "A cat sat."),
        ("Water boils.", "Water is hot."),
        ("a", "b"),
        ("c", "d"),
    ]
    scores = model.support_scores(pairs)
    assert len(scores) == 4 and all(s is not None and 0.0 <= s <= 1.0 for s in scores)
    assert cache.stats.misses == 4
    again = NLIEntailment(
        EntailmentSpec(kind="nli", model=str(tiny_nli), batch_size=3, max_length=64),
        ModelCallCache(tmp_path / "c.sqlite"),
    )
    assert (
        again.support_scores(pairs) == scores and again.cache.stats.misses == 0 and again._model is None
    )  # no model load at all


def test_an_nli_score_is_the_pairs_own_whatever_its_batch_and_threads(tiny_nli: Path, tmp_path: Path) -> None:
    """Exactly, not within a tolerance: a pair's score is a function of the pair alone, so the
    recorded value and every decision at a threshold are the same in any batch, shard or
    thread count.  The pairs make length groups of 1, 2 and 5 pairs, the three row counts for
    which MKL sums a matrix product's row in three orders: scored together in batches of 8 by
    length (what the judge did before issue 48), this seeded model's scores move in their last
    bit (pair 12: 0.33080950379371643 against 0.33080947399139404 alone), as the unseeded one did in
    about one session in eight."""
    import torch

    spec = EntailmentSpec(kind="nli", model=str(tiny_nli), batch_size=8, max_length=64)
    premises = ["The cat sat on the mat.", "Water boils at a hundred degrees. " * 3, "a", "Cats sit."]
    # per premise, claims of 6 word pieces (5 of them), of 4 (2) and of 7 (1)
    claims = ("A cat sat.", "Water is hot.", "Sat a cat.", "Cat a sat.", "A sat cat.")
    claims += ("The mat.", "A mat.", "Is water hot.")
    pairs = [(p, h) for p in premises for h in claims]
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        alone = [
            NLIEntailment(spec, ModelCallCache(tmp_path / f"a{i}.sqlite")).support_scores([p])[0]
            for i, p in enumerate(pairs)
        ]
        torch.set_num_threads(1)
        together = NLIEntailment(spec, ModelCallCache(tmp_path / "b.sqlite")).support_scores(pairs[::-1])[
            ::-1
        ]
    finally:
        torch.set_num_threads(before)
    assert together == alone


def test_similarity_substitute_agrees_with_hand_labels(tmp_path: Path) -> None:
    prof = load_profile()
    pairs = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    test = [p for p in pairs if p["split"] == "test"]
    model = SimilarityEntailment(prof.entailment, prof.embedder.model, ModelCallCache(tmp_path / "c.sqlite"))
    scores = np.array(model.support_scores([(p["premise"], p["hypothesis"]) for p in test]))
    y = [int(p["label"] == "entailment") for p in test]
    kappa = cohen_kappa_score(y, (scores >= prof.entailment.threshold).astype(int))
    assert kappa >= 0.45  # measured 0.53 at the dev-picked threshold (benchmarks/entailment_agreement.py)
    assert cohen_kappa_score(y, (scores >= 0.0).astype(int)) < 0.1  # an absurd threshold is clearly worse
