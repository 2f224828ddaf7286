"""TransformersLM: configuration, identity (fingerprint), loading, and the model-level helpers the
prompt, generation and scoring mixins share. Registered as the ``hf`` LLM backend."""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path
from typing import Any

from textleak.cache import DiskCache, content_hash
from textleak.llm.base import LanguageModel, LocalTokens, _cached_file_hash
from textleak.llm.hf.generate import GenerateMixin
from textleak.llm.hf.kv import PrefixKVMixin
from textleak.llm.hf.render import PromptMixin
from textleak.llm.hf.score import ScoreMixin
from textleak.registry import llm_backends

logger = logging.getLogger(__name__)

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
_META_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
               "tokenizer.model", "special_tokens_map.json", "chat_template.jinja", "chat_template.json")


@llm_backends.register("hf")
class TransformersLM(PromptMixin, GenerateMixin, ScoreMixin, PrefixKVMixin, LocalTokens, LanguageModel):
    """A transformers causal LM behind the cached :class:`LanguageModel` interface.

    ``TransformersLM("Qwen/Qwen2.5-0.5B-Instruct")``, ``TransformersLM("/path/to/folder")``,
    ``TransformersLM("/path/model.gguf")`` or ``TransformersLM("org/repo::model.Q4_K_M.gguf")``
    (GGUF weights are dequantized by transformers; needs the ``gguf`` package).

    Options: ``revision``; ``dtype`` ("auto": float32 on CPU, the checkpoint's dtype on GPU; or
    "float32"/"bfloat16"/"float16"); ``device`` ("cpu", "cuda", ...) or ``device_map`` (accelerate);
    ``batch_size`` (rows per forward pass); ``max_context`` (defaults to the model's
    ``max_position_embeddings``); ``truncation`` ("error" or "left", see :mod:`textleak.llm.hf`); ``chat_template``
    (a Jinja string overriding the tokenizer's); ``prefix_cache`` (True: reuse the KV cache of shared
    prompt prefixes when scoring, and in generation when a cost estimate says it beats batching
    different prompts together; "always": in generation too; False: never); ``trust_remote_code``; ``use_cache`` (the on-disk result
    cache; on by default). The model loads on the first call that needs it, once.
    """

    backend = "hf"

    def __init__(
        self,
        model_id_or_path: str | os.PathLike,
        *,
        gguf_file: str | None = None,
        revision: str | None = None,
        dtype: str = "auto",
        device: str | None = None,
        device_map: Any = None,
        batch_size: int = 8,
        max_context: int | None = None,
        truncation: str = "error",
        chat_template: str | None = None,
        prefix_cache: bool | str = True,
        trust_remote_code: bool = False,
        use_cache: bool = True,
        model_name: str | None = None,
    ):
        source = str(model_id_or_path)
        if gguf_file is None and "::" in source:
            source, gguf_file = source.split("::", 1)
        elif gguf_file is None and source.endswith(".gguf") and Path(source).expanduser().is_file():
            path = Path(source).expanduser().resolve()
            source, gguf_file = str(path.parent), path.name
        if truncation not in ("error", "left"):
            raise ValueError(f"truncation must be 'error' or 'left', got {truncation!r}")
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self.source = source
        self.gguf_file = gguf_file
        self.revision = revision
        self.dtype = str(dtype).replace("torch.", "")
        self.device = device
        self.device_map = device_map
        self.batch_size = int(batch_size)
        self.max_context = max_context
        self.truncation = truncation
        self.chat_template = chat_template
        if prefix_cache not in (True, False, "always"):
            raise ValueError(f"prefix_cache must be True, False or 'always', got {prefix_cache!r}")
        self.prefix_cache = prefix_cache
        self.trust_remote_code = trust_remote_code
        self.model_name = model_name or (f"{source}::{gguf_file}" if gguf_file else source)
        self.cache = DiskCache("llm", enabled=use_cache)
        self._load_lock = threading.Lock()
        self._model = None
        self._tokenizer = None
        self._fingerprint: str | None = None
        self._resolved_dtype: str | None = None
        self._stats = {"forward_calls": 0, "forward_tokens": 0}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_name!r}, dtype={self.dtype!r}, device={self.device or self.device_map!r})"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "dtype": self.resolved_dtype(), "revision": self.revision, "truncation": self.truncation}

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._load_lock = threading.Lock()
        self._model = None
        self._tokenizer = None
        self._fingerprint = None
        self._resolved_dtype = None
        self._stats = {"forward_calls": 0, "forward_tokens": 0}

    # ---- identity -------------------------------------------------------------------------------
    def _model_source(self) -> str:
        """The folder or Hub id to load from (subclasses may resolve it lazily)."""
        return self.source

    def _weights_identity(self) -> str:
        """Hashes of the local files, or the resolved Hub commit, without loading the model."""
        src = self._model_source()
        path = Path(src).expanduser()
        if path.is_dir():
            files = sorted(
                p for p in path.iterdir()
                if p.is_file() and (p.suffix in _WEIGHT_SUFFIXES or p.name in _META_FILES)
                and (self.gguf_file is None or p.suffix != ".gguf" or p.name == self.gguf_file)
            )
            if not files:
                raise FileNotFoundError(f"no model files in {path}")
            return content_hash([(p.name, _cached_file_hash(p)) for p in files])
        return "hub:" + self._hub_commit(src)

    def _hub_commit(self, repo_id: str) -> str:
        if self.revision and re.fullmatch(r"[0-9a-f]{40}", self.revision):
            return self.revision
        from huggingface_hub import try_to_load_from_cache

        probe = self.gguf_file or "config.json"
        cached = try_to_load_from_cache(repo_id, probe, revision=self.revision)
        if isinstance(cached, str):
            m = re.search(r"/snapshots/([0-9a-f]{40})/", cached.replace(os.sep, "/"))
            if m:
                return m.group(1)
        try:
            from huggingface_hub import HfApi

            return HfApi().model_info(repo_id, revision=self.revision).sha
        except Exception as e:  # offline and not cached: load it and use the commit it came from
            logger.info("could not resolve %s on the Hub (%s); loading to fingerprint", repo_id, e)
            self._load()
            commit = getattr(self._model.config, "_commit_hash", None)
            if not commit:
                raise RuntimeError(f"cannot fingerprint {repo_id!r}: not a local folder and no Hub commit") from e
            return commit

    def fingerprint(self) -> str:
        """Weights (file hashes or Hub commit) plus every option that changes outputs (the dtype as
        resolved: "auto" and the dtype it becomes share their cached answers)."""
        if self._fingerprint is None:
            self._fingerprint = content_hash(
                self._weights_identity(), self.gguf_file, self.resolved_dtype(), self.chat_template, self.truncation,
                self.max_context,
            )[:32]
        return self._fingerprint

    # ---- dtype ----------------------------------------------------------------------------------
    def _auto_on_gpu(self) -> bool:
        """Whether "auto" means the checkpoint's dtype (the model goes to a GPU) rather than float32."""
        import torch

        if self.device_map is not None:
            return torch.cuda.is_available()
        from textleak.distributed import local_device

        return str(self.device or local_device()).startswith("cuda")  # where _load_locked puts the model

    def resolved_dtype(self) -> str:
        """The dtype the weights load in ("float32", "bfloat16", ...): ``dtype``, or what "auto" becomes
        here (float32 on CPU, the checkpoint's dtype on GPU), found without loading the weights."""
        if self._resolved_dtype is None:
            import torch

            name = self.dtype
            if name == "auto":
                name = self._checkpoint_dtype() if self._auto_on_gpu() else "float32"
            dtype = getattr(torch, name, None)
            if not isinstance(dtype, torch.dtype):
                raise ValueError(f"unknown dtype {self.dtype!r}: use 'auto', 'float32', 'bfloat16' or 'float16'")
            self._resolved_dtype = str(dtype).replace("torch.", "")
        return self._resolved_dtype

    def _checkpoint_dtype(self) -> str:
        """The dtype transformers' "auto" picks: the config's (``dtype``, formerly ``torch_dtype``). A
        config without one (and a GGUF file, whose config has none) leaves it to the weights, so the
        model is loaded to see."""
        dtype = None
        if not self.gguf_file:
            from transformers import AutoConfig

            try:
                config = AutoConfig.from_pretrained(self._model_source(), **self._pretrained_kwargs())
                dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
            except Exception as e:  # noqa: BLE001 - offline and not cached: the loaded model tells
                logger.info("could not read the config of %s (%s); loading to find its dtype", self.model_name, e)
        if dtype is None:
            self._load()
            dtype = self._model.dtype
        return str(dtype).replace("torch.", "")

    # ---- loading --------------------------------------------------------------------------------
    def _pretrained_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"revision": self.revision, "trust_remote_code": self.trust_remote_code}
        if self.gguf_file:
            kwargs["gguf_file"] = self.gguf_file
        return kwargs

    def _torch_dtype(self):
        import torch

        if self.dtype == "auto" and self._auto_on_gpu():
            return "auto"  # transformers reads the checkpoint's, as _checkpoint_dtype does
        return getattr(torch, self.resolved_dtype())

    def _load(self) -> None:
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is None:
                self._load_locked()

    def _load_locked(self) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        src = self._model_source()
        kwargs = self._pretrained_kwargs()
        logger.info("loading %s", self.model_name)
        tokenizer = AutoTokenizer.from_pretrained(src, **kwargs)
        model_kwargs = dict(kwargs, dtype=self._torch_dtype())
        if self.device_map is not None:
            model_kwargs["device_map"] = self.device_map
        model = AutoModelForCausalLM.from_pretrained(src, **model_kwargs)
        if self.device_map is None:
            from textleak.distributed import local_device

            model.to(self.device or local_device())  # cuda:<LOCAL_RANK> under a multi-process launch
        model.eval()
        self._tokenizer = tokenizer
        self._model = model

    @property
    def tokenizer(self):
        self._load()
        return self._tokenizer

    @property
    def model(self):
        self._load()
        return self._model

    @property
    def forward_stats(self) -> dict[str, int]:
        """Forward passes and tokens fed to the model (padding included) since construction."""
        return dict(self._stats)

    def _eos_ids(self) -> list[int]:
        ids: list[int] = []
        gen_eos = getattr(self.model.generation_config, "eos_token_id", None)
        for value in (gen_eos, self.tokenizer.eos_token_id):
            if value is None:
                continue
            for v in value if isinstance(value, (list, tuple)) else [value]:
                if int(v) not in ids:
                    ids.append(int(v))
        return ids

    def _pad_id(self) -> int:
        tok = self.tokenizer
        if tok.pad_token_id is not None:
            return int(tok.pad_token_id)
        eos = self._eos_ids()
        return eos[0] if eos else 0

    def _device(self):
        return next(self.model.parameters()).device
