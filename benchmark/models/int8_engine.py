"""Local causal LMs in int8 through CTranslate2: the offline default's engine, for answers and judging.

CTranslate2 runs the offline default's checkpoint with int8 weights and integer kernels, 16x
the tokens per CPU second of float32 transformers when generating (docs/measurements.md).
One engine answers (the lm-eval model ``ctranslate2``) and judges (``llm.backend: ctranslate2``,
:class:`CTranslate2LLM`), its weights loaded once per process (:func:`generator`).  The
converted copy lives in ``$GROUNDCOVER_HOME/models/ct2-<key>``, keyed by the source's bytes,
the engine's version and the quantisation, with the tokenizer (and chat template) beside it.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import logging
import os
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmark.core import paths
from benchmark.models import local_models
from benchmark.models.cache import ModelCallCache, content_hash, default_cache
from benchmark.models.llm import (
    LLMUnavailable,
    Messages,
    _CachedLLM,
    chat_prompt,
    local_identity,
    local_model_folder,
)
from benchmark.models.profiles import LLMSpec

log = logging.getLogger(__name__)

#: the weights' type unless a spec says otherwise (``compute_type``: int8, int8_float32, float32, ...)
COMPUTE_TYPE = "int8"
#: Answers are generated in sub-batches of this many prompts of about the same length, one per
#: single-threaded worker per core: a 135M model's step is overhead-bound, so this is 1.57x one
#: batch on two threads (docs/measurements.md).  A batch's composition changes its answers (it is
#: in the model's identity); the threads do not (checked: 24 of 24 answers equal).
SUB_BATCH = 6
#: files of a transformers checkpoint that decide what the model computes (hashed as its source)
_SOURCE_FILES = ("*.safetensors", "*.bin", "*.json", "*.model", "*.txt", "*.jinja")


def engine_version() -> str:
    """The installed CTranslate2 (part of every converted model's key and judge identity)."""
    try:
        return importlib.metadata.version("ctranslate2")
    except importlib.metadata.PackageNotFoundError as exc:
        raise local_models.ModelNotAvailable(
            "the int8 engine needs CTranslate2: pip install 'groundcover[llm]' (or pip install ctranslate2)"
        ) from exc


def _file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


_SOURCE_HASHES: dict[tuple[str, str | None, str | None], str] = {}


def source_hash(ref: str, gguf_file: str | None = None, revision: str | None = None) -> str:
    """SHA-256 of the weights ``ref`` names: the GGUF file's bytes, or the checkpoint's files
    (names and bytes).  Hashed once per process: the key of the converted copy."""
    key = (ref, gguf_file, revision)
    if key not in _SOURCE_HASHES:
        path, gguf = local_models.resolve(ref, gguf_file)
        if gguf:
            _SOURCE_HASHES[key] = _file_sha256(Path(path) / gguf)
        else:
            folder = _local_checkpoint(path, revision)
            files = sorted({p for pattern in _SOURCE_FILES for p in folder.glob(pattern)})
            _SOURCE_HASHES[key] = content_hash([(p.name, _file_sha256(p)) for p in files])
    return _SOURCE_HASHES[key]


def _local_checkpoint(ref: str, revision: str | None = None) -> Path:
    """A local folder of the checkpoint: ``ref`` itself, or the Hub snapshot (from the
    Hub's cache when offline)."""
    if Path(ref).is_dir():
        return Path(ref)
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(ref, revision=revision))


def converted_path(
    ref: str, gguf_file: str | None = None, quantization: str = COMPUTE_TYPE, revision: str | None = None
) -> Path:
    """Where the converted copy of ``ref`` lives (built or not)."""
    key = content_hash(source_hash(ref, gguf_file, revision), engine_version(), quantization)[:16]
    return paths.home() / "models" / f"ct2-{key}"


def convert(
    ref: str, gguf_file: str | None = None, quantization: str = COMPUTE_TYPE, revision: str | None = None
) -> Path:
    """The CTranslate2 copy of ``ref``, built once, beside then renamed (a killed conversion
    never leaves half a model; of two at once the first rename wins)."""
    target = converted_path(ref, gguf_file, quantization, revision)
    if (target / "model.bin").exists():
        return target
    import ctranslate2.converters
    from transformers import AutoTokenizer

    path, gguf = local_models.resolve(ref, gguf_file)
    folder = local_model_folder(ref) if gguf else str(_local_checkpoint(path, revision))
    log.info("converting %s to CTranslate2 %s once into %s", ref, quantization, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    ctranslate2.converters.TransformersConverter(folder, low_cpu_mem_usage=True).convert(
        str(tmp), quantization=quantization, force=True
    )
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.save_pretrained(tmp)
    _name_missing_tokens(tmp / "config.json", tokenizer.eos_token)
    try:
        tmp.replace(target)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _name_missing_tokens(config: Path, fallback: str) -> None:
    """CTranslate2 cannot load a model whose special token is null (the converter copies the
    tokenizer's, and a tokenizer without an unknown token, GPT-2's, has none): such a token
    becomes the end-of-sequence token, which every vocabulary has and nothing then asks for."""
    data = json.loads(config.read_text(encoding="utf-8"))
    if missing := [k for k in ("bos_token", "eos_token", "unk_token") if k in data and data[k] is None]:
        config.write_text(json.dumps({**data, **dict.fromkeys(missing, fallback)}), encoding="utf-8")


@dataclass
class Engine:
    """A converted model loaded once: CTranslate2's generator and the model's tokenizer."""

    generator: Any
    tokenizer: Any
    lock: threading.Lock

    def generate(
        self,
        prompts: Sequence[str],
        *,
        max_new_tokens: int,
        temperature: float = 0.0,
        seed: int = 0,
        repetition_penalty: float | None = None,
        until: Sequence[str] = (),
        sub_batch: int | None = None,
    ) -> list[str]:
        """One continuation per prompt, in one batch (or, with ``sub_batch``, in sub-batches of
        prompts of about the same length): greedy at temperature 0, else sampled with ``seed``;
        cut at the first of ``until`` (lm-eval's stop strings)."""
        import ctranslate2

        tok = self.tokenizer
        tokens = [tok.convert_ids_to_tokens(tok(p, add_special_tokens=False)["input_ids"]) for p in prompts]
        kwargs: dict[str, Any] = {
            "max_length": max_new_tokens,
            "include_prompt_in_result": False,
            "repetition_penalty": float(repetition_penalty or 1.0),
            "max_batch_size": sub_batch or 0,
        }
        if temperature > 0:
            kwargs.update(sampling_topk=0, sampling_temperature=float(temperature))
        with self.lock:
            ctranslate2.set_random_seed(seed)
            results = self.generator.generate_batch(tokens, **kwargs)
        texts = [tok.decode(r.sequences_ids[0], skip_special_tokens=True) for r in results]
        return [_cut(t, until).strip() for t in texts]


def _cut(text: str, until: Sequence[str]) -> str:
    ends = [i for s in until if s and (i := text.find(s)) >= 0]
    return text[: min(ends)] if ends else text


_ENGINES: dict[tuple[str, str, str, bool], Engine] = {}
_ENGINES_LOCK = threading.Lock()


def generator(
    folder: Path, *, device: str = "cpu", compute_type: str = COMPUTE_TYPE, workers: bool = False
) -> Engine:
    """The converted model at ``folder``, loaded once per process (and per device, type and
    threading).  ``workers``: on the CPU, one single-threaded worker per core, each running its
    own sub-batch (answers, :data:`SUB_BATCH`); else CTranslate2's default threads (the judge,
    whose batches are not split)."""
    key = (str(folder), device, compute_type, workers)
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            import ctranslate2
            from transformers import AutoTokenizer

            threads = {}
            if workers and device == "cpu":
                threads = {"inter_threads": os.cpu_count() or 1, "intra_threads": 1}
            gen = ctranslate2.Generator(str(folder), device=device, compute_type=compute_type, **threads)
            _ENGINES[key] = Engine(gen, AutoTokenizer.from_pretrained(str(folder)), threading.Lock())
        return _ENGINES[key]


def default_device() -> str:
    import ctranslate2

    return "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"


class CTranslate2LLM(_CachedLLM):
    """A profile's judge LLM run by CTranslate2 (``llm.backend: ctranslate2``), loaded on the
    first uncached call.  ``args``: ``compute_type`` (default ``int8``), ``gguf_file``,
    ``device``, ``repetition_penalty``.  The identity names the engine's version too."""

    def __init__(self, spec: LLMSpec, cache: ModelCallCache | None = None) -> None:
        self.spec = spec
        self.cache = cache or default_cache()
        self.compute_type = spec.args.compute_type or COMPUTE_TYPE
        self.identity = f"ctranslate2-{engine_version()}:{local_identity(spec, spec.args.gguf_file)}"
        self._engine: Engine | None = None

    def tokenizer(self) -> Any:
        """The model's tokenizer without its weights (what a dry run counts prompt tokens with):
        the converted copy's where it is built, else read from the source as transformers does."""
        from transformers import AutoTokenizer

        if self._engine is not None:
            return self._engine.tokenizer
        path, gguf = local_models.resolve(self.spec.model, self.spec.args.gguf_file)
        return AutoTokenizer.from_pretrained(
            path, **({"gguf_file": gguf} if gguf else {"revision": self.spec.revision})
        )

    def _load(self) -> Engine:
        if self._engine is None:
            folder = convert(self.spec.model, self.spec.args.gguf_file, self.compute_type, self.spec.revision)
            device = self.spec.args.device or default_device()
            self._engine = generator(folder, device=device, compute_type=self.compute_type)
        return self._engine

    def _generate_uncached(
        self, requests: list[Messages], *, max_new_tokens: int, temperature: float, seed: int
    ) -> list[str | LLMUnavailable]:
        engine = self._load()
        return list(
            engine.generate(
                [chat_prompt(engine.tokenizer, m) for m in requests],
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                seed=seed,
                repetition_penalty=self.spec.args.repetition_penalty,
            )
        )
