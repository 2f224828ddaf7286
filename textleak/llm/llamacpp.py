"""The llama.cpp backend: a GGUF file run in process by ``llama-cpp-python``, without dequantising.

``load_llm("llamacpp:embedded")`` (the packaged Gemma 3 270M) or ``load_llm("llamacpp:/models/x.Q4_K_M.gguf")``.
The quantised weights are memory-mapped and run by llama.cpp's kernels, so loading takes about a
second (the transformers backend dequantises the same file to float32).

It follows the transformers backend's rules, so the two agree up to kernel precision:

- **Prompts.** A string is raw text with the model's BOS token; chat messages go through the GGUF's
  chat template (Jinja, ``add_generation_prompt=True``) or, without one, the plain
  "System:/User:/Assistant:" rendering (:func:`textleak.llm.base.plain_chat`).
- **Decoding is done here, not by llama.cpp's sampler**: greedy is the arg-max of the logits;
  sampling draws from temperature + top-p with a numpy generator seeded from the prompt's seed and
  the sample index (:func:`~textleak.llm.base.sample_seed`), so a sample depends only on its seed.
  No top-k, min-p or repetition penalty (llama.cpp's defaults) is applied.
- **Banned phrases**: a token that would complete a phrase (case-insensitive substring of the decoded
  text) is masked and another one drawn, so a banned phrase never appears; **stop strings** end
  the row and the output is cut before them.
- **Scoring** tokenizes prompt + choice jointly and sums the log-probabilities of the tokens after
  the longest common token prefix with the prompt alone; llama.cpp computes logits only at those
  positions (never the whole ``n_ctx x vocabulary`` matrix that ``logits_all=True`` keeps).
- **Prefix reuse.** The KV cache of the last sequence is kept; the next prompt (a judge's instruction
  and demos, another choice, another sample) only computes the tokens after the shared prefix. The
  context is created with ``swa_full=True`` so rolling back inside a sliding-window model (Gemma 3)
  stays exact. A prompt that shares nothing but BOS is decoded from position 0, as in a fresh
  context, so unrelated prompts never change each other's logits; prompts that share a longer prefix
  can differ in the last bits from a fresh context (llama.cpp's kernels round differently for
  different batch splits), which at temperature > 0 can change a sampled token.
- **Context.** ``truncation="error"`` raises :class:`~textleak.llm.PromptError` naming the prompt;
  ``"left"`` drops the oldest prompt tokens (BOS kept) with a warning.

One model runs one sequence at a time (a lock serialises threads); run several processes (see
docs/llm.md, multi-process judging) or a server for more.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from textleak.cache import DiskCache, content_hash
from textleak.registry import llm_backends
from textleak.llm.base import (
    GenerationParams, LanguageModel, LocalTokens, PromptError, _cached_file_hash, _common_prefix_len, plain_chat, sample_seed,
)

logger = logging.getLogger(__name__)

_MAX_REDRAWS = 64


_PATCH_LOCK = threading.Lock()


def cpu_has_amx() -> bool:
    """Whether this (Linux) CPU reports Intel AMX (``amx_int8`` in /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return any(line.startswith("flags") and "amx_int8" in line.split() for line in f)
    except OSError:
        return False


def resolve_extra_buffers(extra_buffers: bool | None) -> bool:
    """llama.cpp's extra CPU buffer types (AMX, repacked weights) are on unless asked otherwise,
    except on CPUs reporting AMX: there llama-cpp-python 0.3.36 built natively crashes in
    ``llama_decode`` (segmentation fault) with them on a Q4_K_M Gemma 3, and runs with them off."""
    return (not cpu_has_amx()) if extra_buffers is None else bool(extra_buffers)


@contextlib.contextmanager
def model_params_patch(extra_buffers: bool):
    """While active, ``llama_cpp.Llama`` builds its model with ``use_extra_bufts=extra_buffers``
    (llama-cpp-python exposes no argument for it)."""
    import llama_cpp.llama_cpp as low

    if extra_buffers:
        yield
        return
    with _PATCH_LOCK:
        original = low.llama_model_default_params

        def patched():
            params = original()
            params.use_extra_bufts = False
            return params

        low.llama_model_default_params = patched
        try:
            yield
        finally:
            low.llama_model_default_params = original


def _require_llama_cpp():
    try:
        import llama_cpp
    except ImportError as e:
        raise ImportError(
            "the llama.cpp backend needs llama-cpp-python: pip install 'textleak[llamacpp]' "
            "(it compiles llama.cpp; a few minutes once, then pip's wheel cache serves it)"
        ) from e
    return llama_cpp


@llm_backends.register("llamacpp")
class LlamaCppLM(LocalTokens, LanguageModel):
    """A GGUF model through llama.cpp behind the cached :class:`LanguageModel` interface.

    ``LlamaCppLM("embedded")`` or ``LlamaCppLM("/path/model.gguf")``. Options: ``n_ctx`` (context
    allocated, default 8192, capped at the model's training context); ``max_context`` (the limit for
    the truncation policy; default ``n_ctx``); ``truncation`` ("error" or "left"); ``chat_template``
    (a Jinja string overriding the GGUF's); ``n_threads`` / ``n_threads_batch`` (default: llama.cpp's);
    ``n_batch`` (tokens per decode call); ``n_gpu_layers`` (-1: all, for a GPU build);
    ``flash_attn``; ``extra_buffers`` (llama.cpp's AMX/repacked-weight CPU buffers; default: on,
    except on CPUs with AMX, see :func:`resolve_extra_buffers`); ``use_cache``; ``model_name``.
    """

    backend = "llamacpp"

    def __init__(
        self,
        model_path: str | os.PathLike = "embedded",
        *,
        n_ctx: int = 8192,
        max_context: int | None = None,
        truncation: str = "error",
        chat_template: str | None = None,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        n_batch: int = 512,
        n_gpu_layers: int = 0,
        flash_attn: bool = False,
        extra_buffers: bool | None = None,
        use_cache: bool = True,
        model_name: str | None = None,
    ):
        if truncation not in ("error", "left"):
            raise ValueError(f"truncation must be 'error' or 'left', got {truncation!r}")
        if n_ctx < 16 or n_batch < 1:
            raise ValueError("n_ctx must be >= 16 and n_batch >= 1")
        self.model_path = str(model_path)
        if self.model_path != "embedded" and not Path(self.model_path).expanduser().is_file():
            raise FileNotFoundError(f"no GGUF file at {self.model_path!r} (or use 'llamacpp:embedded')")
        self.n_ctx = int(n_ctx)
        self.max_context = max_context
        self.truncation = truncation
        self.chat_template = chat_template
        self.n_threads = n_threads
        self.n_threads_batch = n_threads_batch
        self.n_batch = int(n_batch)
        self.n_gpu_layers = int(n_gpu_layers)
        self.flash_attn = bool(flash_attn)
        self.extra_buffers = extra_buffers
        if model_name:
            self.model_name = model_name
        elif self.model_path == "embedded":
            from textleak.llm.embedded_gguf import EMBEDDED_NAME

            self.model_name = EMBEDDED_NAME
        else:
            self.model_name = Path(self.model_path).name
        self.cache = DiskCache("llm", enabled=use_cache)
        self.__setstate__({})

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._lock = threading.RLock()
        self._llm = None
        self._batch = None
        self._past: list[int] = []
        self._memo: dict = {}  # position in _past -> its logits (float32 row)
        self._fingerprint: str | None = None
        self._template = None
        self._stats = {"decode_calls": 0, "decoded_tokens": 0, "load_seconds": 0.0}

    def __repr__(self) -> str:
        return f"LlamaCppLM({self.model_path!r}, n_ctx={self.n_ctx})"

    # ---- identity -------------------------------------------------------------------------------
    def gguf_path(self) -> Path:
        if self.model_path == "embedded":
            from textleak.llm.embedded_gguf import embedded_gguf_path

            return embedded_gguf_path()
        return Path(self.model_path).expanduser().resolve()

    def _weights_identity(self) -> str:
        if self.model_path == "embedded":
            from textleak.llm.embedded_gguf import embedded_gguf_sha256

            return "gguf-sha256:" + embedded_gguf_sha256()  # the same identity as the transformers backend
        return "gguf-sha256:" + _cached_file_hash(self.gguf_path())

    def fingerprint(self) -> str:
        """The GGUF's SHA-256 plus the options that change outputs (no load needed)."""
        if self._fingerprint is None:
            self._fingerprint = content_hash(self._weights_identity(), self.chat_template, self.truncation,
                                             self.max_context)[:32]
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "gguf": str(self.model_path), "truncation": self.truncation}

    @property
    def stats(self) -> dict[str, float]:
        """llama.cpp decode calls and tokens since construction, and the load time in seconds."""
        return dict(self._stats)

    # ---- loading --------------------------------------------------------------------------------
    @property
    def llm(self):
        """The ``llama_cpp.Llama`` object (loaded on first use)."""
        if self._llm is None:
            with self._lock:
                if self._llm is None:
                    self._load()
        return self._llm

    def _load(self) -> None:
        import time

        llama_cpp = _require_llama_cpp()
        started = time.perf_counter()
        path = self.gguf_path()
        kwargs: dict[str, Any] = dict(
            n_gpu_layers=self.n_gpu_layers, n_batch=self.n_batch, n_ubatch=self.n_batch, logits_all=False,
            swa_full=True, flash_attn=self.flash_attn, verbose=False,
        )
        if self.n_threads:
            kwargs["n_threads"] = int(self.n_threads)
        if self.n_threads_batch:
            kwargs["n_threads_batch"] = int(self.n_threads_batch)
        with model_params_patch(resolve_extra_buffers(self.extra_buffers)):
            llm = llama_cpp.Llama(str(path), n_ctx=self.n_ctx, **kwargs)
            trained = int(llama_cpp.llama_model_n_ctx_train(llm.model))
            if 0 < trained < self.n_ctx:  # never allocate more context than the model was trained for
                del llm
                llm = llama_cpp.Llama(str(path), n_ctx=trained, **kwargs)
        self._llm = llm
        self._batch = llama_cpp._internals.LlamaBatch(n_tokens=self.n_batch, embd=0, n_seq_max=1, verbose=False)
        self._past = []
        self._memo = {}
        self._n_vocab = int(llm.n_vocab())
        eos = {int(llm.token_eos())}
        for name in (b"<end_of_turn>", b"<|eot_id|>", b"<|im_end|>"):
            ids = llm.tokenize(name, add_bos=False, special=True)
            if len(ids) == 1:
                eos.add(int(ids[0]))
        self._eos = eos
        bos = int(llm.token_bos())
        self._bos_id = bos if bos >= 0 and llm._model.add_bos_token() else None
        self._bos_text = llm.detokenize([bos], special=True).decode("utf-8", "ignore") if bos >= 0 else ""
        self._stats["load_seconds"] = time.perf_counter() - started
        logger.info("loaded %s with llama.cpp in %.2f s (n_ctx %d)", path.name, self._stats["load_seconds"], llm.n_ctx())

    def context_length(self) -> int:
        allocated = int(self.llm.n_ctx())
        return min(int(self.max_context), allocated) if self.max_context else allocated

    # ---- prompt handling ------------------------------------------------------------------------
    def _chat_template(self):
        if self._template is None:
            source = self.chat_template or self.llm.metadata.get("tokenizer.chat_template")
            if source:
                from jinja2.sandbox import ImmutableSandboxedEnvironment

                def raise_exception(message):
                    raise ValueError(message)

                env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
                env.globals["raise_exception"] = raise_exception
                self._template = env.from_string(source)
            else:
                self._template = False
        return self._template

    def render(self, prompt) -> tuple[str, bool]:
        """The text a prompt becomes, and whether the BOS token is added in front of it."""
        if isinstance(prompt, str):
            return prompt, True
        template = self._chat_template()
        if template:
            eos = self.llm.detokenize([self.llm.token_eos()], special=True).decode("utf-8", "ignore")
            text = template.render(messages=list(prompt), add_generation_prompt=True, bos_token=self._bos_text,
                                   eos_token=eos)
            return text, not (self._bos_text and text.startswith(self._bos_text))
        return plain_chat(prompt), True

    def _encode_text(self, text: str, add_bos: bool) -> list[int]:
        ids = [int(t) for t in self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)]
        if add_bos and self._bos_id is not None:
            ids = [self._bos_id] + ids
        return ids

    def encode(self, prompt) -> list[int]:
        """Token ids of a prompt, as the model sees it."""
        return self._encode_text(*self.render(prompt))

    def _detokenize(self, ids: Sequence[int]) -> str:
        return self.llm.detokenize(list(ids), special=False).decode("utf-8", "replace") if ids else ""

    def _n_protected(self, ids: Sequence[int]) -> int:
        return 1 if ids and self._bos_id is not None and ids[0] == self._bos_id else 0

    # ---- the KV cache and logits ----------------------------------------------------------------
    def _advance(self, ids: list[int], keep: Sequence[int]):
        """Make the KV cache hold ``ids`` and return the logits (float32, one row per position in
        ``keep``, each row predicting the token after that position). Positions shared with the
        sequence already cached are not recomputed, unless their logits are wanted."""
        import numpy as np

        llama_cpp = _require_llama_cpp()
        llm = self.llm
        if len(ids) > llm.n_ctx():
            raise PromptError(0, f"{len(ids)} tokens exceed the context of {llm.n_ctx()} tokens allocated (n_ctx)")
        keep = sorted(set(int(k) for k in keep))
        common = _common_prefix_len(self._past, ids)
        if common <= self._n_protected(ids):
            # nothing shared but BOS: decode from position 0, exactly as a fresh context would (llama.cpp's
            # kernels give slightly different numbers for different batch splits, which can flip a sample)
            common = 0
        # logits already computed for a shared position are reused (e.g. the choices of one prompt
        # share all but their last tokens); the rest is decoded from the first position missing
        missing = [k for k in keep if not (k < common and k in self._memo)]
        start = max(0, min(common, missing[0] if missing else len(ids)))
        if start < len(self._past):
            llm._ctx.kv_cache_seq_rm(0, start, -1)
            for k in [k for k in self._memo if k >= start]:
                del self._memo[k]
        self._past = list(ids[:start])
        wanted = set(missing)
        out = np.empty((len(keep), self._n_vocab), dtype=np.float32)
        row_of = {k: r for r, k in enumerate(keep)}
        for k in keep:
            if k not in wanted:
                out[row_of[k]] = self._memo[k]
        batch = self._batch.batch
        for lo in range(start, len(ids), self.n_batch):
            chunk = ids[lo:lo + self.n_batch]
            batch.n_tokens = len(chunk)
            flagged = []
            for i, tok in enumerate(chunk):
                batch.token[i] = tok
                batch.pos[i] = lo + i
                batch.seq_id[i][0] = 0
                batch.n_seq_id[i] = 1
                flag = (lo + i) in wanted
                batch.logits[i] = flag
                if flag:
                    flagged.append(i)
            rc = llama_cpp.llama_decode(llm._ctx.ctx, batch)
            if rc != 0:
                self._past = []
                self._memo.clear()
                llm._ctx.kv_cache_seq_rm(0, 0, -1)
                raise RuntimeError(f"llama_decode returned {rc}")
            self._stats["decode_calls"] += 1
            self._stats["decoded_tokens"] += len(chunk)
            for i in flagged:
                ptr = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, i)
                row = out[row_of[lo + i]]
                row[:] = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
                self._memo[lo + i] = row.copy()
            self._past.extend(chunk)
        while len(self._memo) > 64:  # about 1 MB per row for a 262k vocabulary
            del self._memo[next(iter(self._memo))]
        return out

    @staticmethod
    def _log_softmax(logits):
        import numpy as np

        x = logits.astype(np.float64)
        top = x.max()
        return x - (top + np.log(np.exp(x - top).sum()))

    # ---- scoring --------------------------------------------------------------------------------
    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        with self._lock:
            rows = self._choice_rows(prompts, choices)
            scores = [[0.0] * len(c) for c in choices]
            # rows sharing a token prefix run one after another, so the KV cache of the prefix is reused
            for r in sorted(range(len(rows)), key=lambda r: rows[r][2]):
                i, j, ids, start = rows[r]
                logits = self._advance(ids, range(start - 1, len(ids) - 1))
                total = 0.0
                for k, row in enumerate(logits):
                    total += float(self._log_softmax(row)[ids[start + k]])
                scores[i][j] = total
        return scores

    # ---- generation -----------------------------------------------------------------------------
    def _generate(self, prompts: list, params: GenerationParams, seeds: list[int]) -> list[list[str | None]]:
        from tqdm.auto import tqdm

        encoded = []
        with self._lock:
            for i, prompt in enumerate(prompts):
                ids, _ = self._fit(i, self.encode(prompt), params.max_new_tokens, f"max_new_tokens={params.max_new_tokens}")
                encoded.append(ids)
            out: list[list[str | None]] = [[None] * params.n for _ in prompts]
            order = sorted(range(len(prompts)), key=lambda i: encoded[i])  # shared prefixes back to back
            rows = [(i, k) for i in order for k in range(params.n if not params.greedy else 1)]
            for i, k in tqdm(rows, desc=f"generate {self.model_name}", disable=len(rows) < 8, leave=False):
                text = self._decode_row(encoded[i], params, sample_seed(seeds[i], k))
                if params.greedy:
                    out[i] = [text] * params.n
                else:
                    out[i][k] = text
        return out

    def _decode_row(self, ids: list[int], params: GenerationParams, seed: int) -> str | None:
        import numpy as np

        rng = None if params.greedy else np.random.default_rng(seed)
        phrases = sorted({p.casefold() for p in params.banned_phrases if p and p.strip()})
        window = 4 * max((len(p) for p in phrases), default=0) + 16
        stop_window = 4 * max((len(s) for s in params.stop), default=0) + 16
        generated: list[int] = []
        logits = self._advance(ids, [len(ids) - 1])[0]
        for _ in range(params.max_new_tokens):
            pick = self._choose(logits, params, rng, phrases, generated, window)
            if pick is None or pick in self._eos:
                break
            generated.append(pick)
            if params.stop and any(s and s in self._detokenize(generated[-stop_window:]) for s in params.stop):
                break
            if len(generated) == params.max_new_tokens:
                break
            logits = self._advance(ids + generated, [len(ids) + len(generated) - 1])[0]
        text = self._detokenize(generated)
        if params.stop:
            cut = min((pos for pos in (text.find(s) for s in params.stop if s) if pos >= 0), default=-1)
            if cut >= 0:
                text = text[:cut]
        if phrases and any(p in text.casefold() for p in phrases):
            logger.error("a banned phrase survived decoding; reporting the row as failed")
            return None
        return text

    def _choose(self, logits, params: GenerationParams, rng, phrases: list[str], generated: list[int], window: int) -> int | None:
        """Arg-max (greedy) or a draw after temperature and top-p, re-drawing while the token would
        complete a banned phrase (the same rule as the transformers backend's token chooser)."""
        import numpy as np

        x = logits.astype(np.float64)
        probs = cands = None
        if rng is not None:
            z = x / params.temperature
            z -= z.max()
            full = np.exp(z)
            full /= full.sum()
            cands = np.arange(len(full))
            if params.top_p < 1.0:
                # the nucleus: the most probable tokens until their mass reaches top_p (ties broken
                # by token id). It nearly always lies within the top 2,048, found without a full sort.
                k = min(len(full), 2048)
                top = np.argpartition(-full, k - 1)[:k] if k < len(full) else cands
                if full[top].sum() < params.top_p:
                    top = cands
                order = top[np.lexsort((top, -full[top]))]
                sorted_p = full[order]
                cands = order[(np.cumsum(sorted_p) - sorted_p) < params.top_p]
            probs = full[cands]
        for _ in range(_MAX_REDRAWS):
            if probs is None:
                pick = int(np.argmax(x))
            else:
                total = probs.sum()
                if total <= 0:
                    return None
                at = int(np.searchsorted(np.cumsum(probs), rng.random() * total, side="right"))
                at = min(at, len(probs) - 1)
                pick = int(cands[at])
            if not phrases or pick in self._eos:
                return pick
            text = self._detokenize(generated[-window:] + [pick]).casefold()
            if not any(p in text for p in phrases):
                return pick
            x[pick] = -np.inf
            if probs is not None:
                probs[at] = 0.0
        logger.warning("%d tokens in a row would complete a banned phrase; ending the row", _MAX_REDRAWS)
        return None
