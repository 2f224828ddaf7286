"""The transformers backend: any causal LM from the Hub, a local folder, or a GGUF file.

Design choices, each pinned by a test:

- **Prompts.** A string is raw text (the tokenizer adds its BOS token; no chat template is applied,
  even on a chat model). A list of messages goes through the tokenizer's chat template with
  ``add_generation_prompt=True``; a tokenizer without one (e.g. a base model) gets a plain
  "System:/User:/Assistant:" rendering ending in ``"Assistant:"`` (:func:`plain_chat`).
- **Reproducible sampling.** Each sampled row (prompt, sample index) draws from its own
  ``torch.Generator`` seeded from the prompt's seed and the sample index, inside a logits processor;
  so a sample depends on its seed, never on which other prompts share its batch. Greedy decoding
  batches freely. No global RNG state is touched.
- **Banned phrases** are matched case-insensitively as substrings of the generated text (which covers
  every casing and spacing variant, and every tokenization of them). Before a token is accepted, the
  decoded text with that token is checked; a token that would complete a banned phrase is masked and
  another one is drawn. So a banned phrase cannot appear in the output (the controlled-generation
  code relies on this for zero leakage); a final check turns any miss into a failure, never a leak.
- **Stop strings** end a row's decoding once they appear in its decoded text; the output is cut
  before the first stop string.
- **Context length.** ``truncation="error"`` (default) raises :class:`PromptError` naming the prompt
  when prompt + ``max_new_tokens`` (or prompt + choice, when scoring) exceeds the context;
  ``truncation="left"`` drops the oldest prompt tokens (keeping BOS) with a warning.
- **Scoring** tokenizes prompt + choice jointly; the choice's tokens are those after the longest
  common token prefix of the prompt alone and the joint text (so a token straddling the boundary is
  scored as part of the choice). Rows are sorted so that rows sharing a token prefix (the choices of
  one prompt, or many prompts sharing an instruction and demos) are batched together; their common
  prefix is run once and its KV cache reused for the rest of every row.
- **Generation** reuses shared prefixes too: a batch of prompts sharing a prefix is laid out as
  cached prefix + padding + own tokens (exact; on sliding-window models only while the sequence fits
  the window), and the samples of one prompt can share its prefill (see ``_prefix_mode``).
"""

from __future__ import annotations

import copy
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any, Sequence

from textleak.cache import DiskCache, content_hash
from textleak.llm.base import (  # noqa: F401  (plain_chat and sample_seed are part of this module's API)
    GenerationParams, LanguageModel, PromptError, _cached_file_hash, _common_prefix_len, plain_chat, sample_seed,
)
from textleak.registry import llm_backends

logger = logging.getLogger(__name__)

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".pth")
_META_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
               "tokenizer.model", "special_tokens_map.json", "chat_template.jinja", "chat_template.json")
_MAX_REDRAWS = 64
_CALL_COST = 64  # a forward pass's fixed cost, in prompt tokens (see TransformersLM._prefix_mode)


@llm_backends.register("hf")
class TransformersLM(LanguageModel):
    """A transformers causal LM behind the cached :class:`LanguageModel` interface.

    ``TransformersLM("Qwen/Qwen2.5-0.5B-Instruct")``, ``TransformersLM("/path/to/folder")``,
    ``TransformersLM("/path/model.gguf")`` or ``TransformersLM("org/repo::model.Q4_K_M.gguf")``
    (GGUF weights are dequantized by transformers; needs the ``gguf`` package).

    Options: ``revision``; ``dtype`` ("auto": float32 on CPU, the checkpoint's dtype on GPU; or
    "float32"/"bfloat16"/"float16"); ``device`` ("cpu", "cuda", ...) or ``device_map`` (accelerate);
    ``batch_size`` (rows per forward pass); ``max_context`` (defaults to the model's
    ``max_position_embeddings``); ``truncation`` ("error" or "left", see module doc); ``chat_template``
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
        self._stats = {"forward_calls": 0, "forward_tokens": 0}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_name!r}, dtype={self.dtype!r}, device={self.device or self.device_map!r})"

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "dtype": self.dtype, "revision": self.revision, "truncation": self.truncation}

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._load_lock = threading.Lock()
        self._model = None
        self._tokenizer = None
        self._fingerprint = None
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
        """Weights (file hashes or Hub commit) plus every option that changes outputs."""
        if self._fingerprint is None:
            self._fingerprint = content_hash(
                self._weights_identity(), self.gguf_file, self.dtype, self.chat_template, self.truncation,
                self.max_context,
            )[:32]
        return self._fingerprint

    # ---- loading --------------------------------------------------------------------------------
    def _torch_dtype(self):
        import torch

        if self.dtype == "auto":
            on_gpu = (self.device or "").startswith("cuda") or (self.device_map is not None and torch.cuda.is_available())
            return "auto" if on_gpu else torch.float32
        return getattr(torch, self.dtype)

    def _load(self) -> None:
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is None:
                self._load_locked()

    def _load_locked(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        src = self._model_source()
        kwargs: dict[str, Any] = {"revision": self.revision, "trust_remote_code": self.trust_remote_code}
        if self.gguf_file:
            kwargs["gguf_file"] = self.gguf_file
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

    def context_length(self) -> int:
        if self.max_context:
            return int(self.max_context)
        cfg = self.model.config
        cfg = getattr(cfg, "text_config", None) or cfg
        for name in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
            value = getattr(cfg, name, None)
            if value:
                return int(value)
        return int(min(self.tokenizer.model_max_length, 1 << 20))

    # ---- prompt handling ------------------------------------------------------------------------
    def render(self, prompt) -> tuple[str, bool]:
        """The text a prompt becomes, and whether the tokenizer should add its special tokens."""
        tok = self.tokenizer
        if isinstance(prompt, str):
            return prompt, True
        template = self.chat_template or getattr(tok, "chat_template", None)
        if template:
            text = tok.apply_chat_template(list(prompt), tokenize=False, add_generation_prompt=True, chat_template=template)
            bos = tok.bos_token
            return text, not (bos and text.startswith(bos))
        return plain_chat(prompt), True

    def _encode_text(self, text: str, add_special: bool) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=add_special)["input_ids"])

    def encode(self, prompt) -> list[int]:
        """Token ids of a prompt, as the model sees it."""
        return self._encode_text(*self.render(prompt))

    def _n_protected(self, ids: Sequence[int]) -> int:
        bos = self.tokenizer.bos_token_id
        return 1 if ids and bos is not None and ids[0] == bos else 0

    def _fit(self, index: int, ids: list[int], budget: int, what: str) -> tuple[list[int], int]:
        """Apply the context policy; returns the ids and how many prompt tokens were dropped."""
        limit = self.context_length()
        if len(ids) + budget <= limit:
            return ids, 0
        problem = (f"{len(ids)} tokens + {what} exceed the model's context of {limit} tokens "
                   f"(pass truncation='left' to drop the oldest prompt tokens, or shorten the record)")
        if self.truncation == "error":
            raise PromptError(index, problem)
        keep_head = self._n_protected(ids)
        drop = len(ids) + budget - limit
        if drop > len(ids) - keep_head - 1:
            raise PromptError(index, problem + f"; even truncated, nothing of the prompt would remain")
        logger.warning("prompt %d: dropping its first %d tokens to fit the context of %d tokens", index, drop, limit)
        return ids[:keep_head] + ids[keep_head + drop:], drop

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

    # ---- generation -----------------------------------------------------------------------------
    def _generate(self, prompts: list, params: GenerationParams, seeds: list[int]) -> list[list[str | None]]:
        from tqdm.auto import tqdm

        encoded = [self._fit(i, self.encode(p), params.max_new_tokens, f"max_new_tokens={params.max_new_tokens}")[0]
                   for i, p in enumerate(prompts)]
        for i, ids in enumerate(encoded):
            if not ids:
                raise PromptError(i, "the prompt is empty and the tokenizer adds no BOS token: nothing to condition on")
        samples = 1 if params.greedy else params.n
        rows = [(i, j) for i in range(len(prompts)) for j in range(samples)]
        results: dict[tuple[int, int], str | None] = {}
        by_prompt = self._prefix_mode(encoded, samples, params.max_new_tokens)
        if by_prompt:
            # one prompt per batch (its samples): its KV cache is computed once, by extending the
            # cached prefix it shares with its neighbours (e.g. a judge's instruction and demos)
            prompt_order = sorted(range(len(prompts)), key=lambda i: encoded[i])
            batches, heads = [], []
            for i in prompt_order:
                mine = list(range(i * samples, (i + 1) * samples))
                for k in range(0, len(mine), self.batch_size):
                    batches.append(mine[k:k + self.batch_size])
                    heads.append(encoded[i][:-1])
        else:
            order = sorted(range(len(rows)), key=lambda r: (len(encoded[rows[r][0]]), rows[r]))
            if self.prefix_cache and self._shares_prefixes(encoded):
                order = sorted(range(len(rows)), key=lambda r: (encoded[rows[r][0]], rows[r]))
            batches = [order[k:k + self.batch_size] for k in range(0, len(order), self.batch_size)]
            heads = [self._batch_head([encoded[rows[r][0]] for r in batch], params.max_new_tokens) for batch in batches]
        memo: dict[tuple, tuple] = {}
        device = self._device()
        for b, batch in enumerate(tqdm(batches, desc=f"generate {self.model_name}", disable=len(batches) < 4, leave=False)):
            state = None
            if heads[b]:
                import torch

                with torch.inference_mode():
                    shared = max((_common_prefix_len(heads[b], heads[o]) for o in (b - 1, b + 1) if 0 <= o < len(batches)), default=0)
                    if 8 <= shared < len(heads[b]):
                        self._prefix_state(tuple(heads[b][:shared]), memo, device)
                    state = self._prefix_state(tuple(heads[b]), memo, device)
            texts = self._generate_batch(
                [encoded[rows[r][0]] for r in batch],
                [sample_seed(seeds[rows[r][0]], rows[r][1]) for r in batch],
                params,
                state,
            )
            for r, text in zip(batch, texts):
                results[rows[r]] = text
        if params.greedy:
            return [[results[(i, 0)]] * params.n for i in range(len(prompts))]
        return [[results[(i, j)] for j in range(params.n)] for i in range(len(prompts))]

    def _shares_prefixes(self, encoded: list[list[int]]) -> bool:
        """Whether prompts, sorted, share on average at least 16 tokens with their neighbour."""
        if len(encoded) < 2:
            return False
        ordered = sorted(encoded)
        return sum(_common_prefix_len(a, b) for a, b in zip(ordered, ordered[1:])) >= 16 * (len(ordered) - 1)

    def _sliding_window(self) -> int | None:
        """The attention window of the model's sliding-window layers, or None if it has none."""
        cfg = self.model.config
        cfg = getattr(cfg, "text_config", None) or cfg
        window = getattr(cfg, "sliding_window", None)
        if not window or getattr(cfg, "use_sliding_window", True) is False:
            return None
        layer_types = getattr(cfg, "layer_types", None)
        if layer_types is not None and "sliding_attention" not in layer_types:
            return None
        return int(window)

    def _batch_head(self, id_lists: list[list[int]], new_tokens: int) -> list[int]:
        """The prefix a batch of different prompts shares (each keeps at least one token of its own),
        when reusing its KV cache is exact: the rows are laid out prefix + padding + own tokens, and
        padding inside a sliding attention window would shift that window, so the whole sequence must
        fit in it. Empty when not worth it or not exact."""
        if not self.prefix_cache or len(id_lists) < 2:
            return []
        head = id_lists[0][:-1]
        for ids in id_lists[1:]:
            head = head[:_common_prefix_len(head, ids[:-1])]
        if len(head) < 8:
            return []
        window = self._sliding_window()
        longest = max(len(ids) for ids in id_lists)
        if window is not None and len(head) + (longest - len(head)) + new_tokens > window:
            return []
        return head

    def _prefix_mode(self, encoded: list[list[int]], samples: int, new_tokens: int) -> bool:
        """Whether to batch by prompt and reuse prefix KV caches rather than left-pad different prompts
        into shared batches. Prefix reuse saves prompt tokens; shared batches save decoding steps (each
        a forward pass whose fixed cost, mostly reading the weights, is counted as ``_CALL_COST``
        tokens). The cheaper plan by that estimate wins."""
        if not self.prefix_cache or (len(encoded) < 2 and samples < 2):
            return False
        if self.prefix_cache == "always":
            return True
        rows = sorted(len(ids) for ids in encoded for _ in range(samples))
        batched = 0
        for k in range(0, len(rows), self.batch_size):
            chunk = rows[k:k + self.batch_size]
            batched += len(chunk) * max(chunk) + _CALL_COST + new_tokens * (_CALL_COST + len(chunk))
        ordered = sorted(encoded)
        unique = len(ordered[0]) + sum(len(b) - _common_prefix_len(a, b) for a, b in zip(ordered, ordered[1:]))
        per_prompt_batches = len(encoded) * -(-samples // self.batch_size)
        by_prompt = unique + per_prompt_batches * (2 * _CALL_COST + new_tokens * (_CALL_COST + min(samples, self.batch_size)))
        return by_prompt < batched

    def _generate_batch(self, id_lists: list[list[int]], row_seeds: list[int], params: GenerationParams,
                        prefix_state=None) -> list[str | None]:
        import torch
        from transformers import GenerationConfig, LogitsProcessorList, StoppingCriteriaList

        pad = self._pad_id()
        head = len(prefix_state[2]) if prefix_state is not None else 0
        own = [ids[head:] for ids in id_lists]  # rows: cached prefix + left padding + own tokens
        own_width = max(len(ids) for ids in own)
        width = head + own_width
        input_ids = torch.tensor([id_lists[0][:head] + [pad] * (own_width - len(ids)) + ids for ids in own], dtype=torch.long)
        attention = torch.tensor([[1] * head + [0] * (own_width - len(ids)) + [1] * len(ids) for ids in own], dtype=torch.long)
        device = self._device()
        input_ids, attention = input_ids.to(device), attention.to(device)
        eos = self._eos_ids()
        processors = LogitsProcessorList()
        guard = _PhraseGuard(self.tokenizer, params.banned_phrases, width) if params.banned_phrases else None
        if not params.greedy or guard is not None:
            generators = None
            if not params.greedy:
                generators = [torch.Generator().manual_seed(s) for s in row_seeds]
            processors.append(_TokenChooser(params.temperature, params.top_p, generators, guard, eos))
        stopping = StoppingCriteriaList()
        if params.stop:
            stopping.append(_StopOnStrings(self.tokenizer, params.stop, width))
        config = GenerationConfig(
            max_new_tokens=params.max_new_tokens, do_sample=False, num_beams=1,
            eos_token_id=eos or None, pad_token_id=pad,
        )
        extra: dict[str, Any] = {}
        with torch.inference_mode():
            if prefix_state is not None:  # the rows' shared prefix is cached
                cache = copy.deepcopy(prefix_state[0])
                if len(id_lists) > 1:
                    cache.batch_repeat_interleave(len(id_lists))
                extra["past_key_values"] = cache
            out = self.model.generate(
                input_ids=input_ids, attention_mask=attention, generation_config=config,
                logits_processor=processors, stopping_criteria=stopping, **extra,
            )
        new_tokens = out.shape[1] - width  # one forward each: the prefill yields the first
        self._stats["forward_calls"] += new_tokens
        prefill = own_width if prefix_state is not None else width
        self._stats["forward_tokens"] += len(id_lists) * (prefill + max(new_tokens - 1, 0))
        texts: list[str | None] = []
        for row in out[:, width:].tolist():
            for k, tok in enumerate(row):
                if tok in eos:
                    row = row[:k]
                    break
            text = self.tokenizer.decode(row, skip_special_tokens=True)
            if params.stop:
                cut = min((pos for pos in (text.find(s) for s in params.stop) if pos >= 0), default=-1)
                if cut >= 0:
                    text = text[:cut]
            if guard is not None and guard.first_match(text) is not None:
                logger.error("a banned phrase survived decoding; reporting the row as failed")
                text = None
            texts.append(text)
        return texts

    # ---- scoring --------------------------------------------------------------------------------
    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        import torch
        from tqdm.auto import tqdm

        rows: list[tuple[int, int, list[int], int]] = []  # (prompt, choice, ids, first choice token)
        for i, (prompt, options) in enumerate(zip(prompts, choices)):
            text, add_special = self.render(prompt)
            prompt_ids = self._encode_text(text, add_special)
            for j, choice in enumerate(options):
                if not isinstance(choice, str) or not choice:
                    raise PromptError(i, f"choice {j} must be a non-empty string, got {choice!r}")
                joint = self._encode_text(text + choice, add_special)
                start = _common_prefix_len(prompt_ids, joint)
                if start >= len(joint):
                    raise PromptError(i, f"choice {j} ({choice!r}) adds no tokens to the prompt")
                if start == 0:
                    raise PromptError(i, "the prompt is empty and the tokenizer adds no BOS token: nothing to condition on")
                n_choice = len(joint) - start
                head, dropped = self._fit(i, joint[:start], n_choice, f"choice {j} ({n_choice} tokens)")
                rows.append((i, j, head + joint[start:], start - dropped))
        scores = [[0.0] * len(c) for c in choices]
        order = sorted(range(len(rows)), key=lambda r: rows[r][2])
        batches = self._score_batches([rows[r][2] for r in order], [rows[r][3] for r in order])
        batches = [[order[k] for k in batch] for batch in batches]
        prefixes = [self._batch_prefix([rows[r][2] for r in b], [rows[r][3] for r in b]) for b in batches]
        memo: dict[tuple, tuple] = {}
        device = self._device()
        with torch.inference_mode():
            for b, batch in enumerate(tqdm(batches, desc=f"score {self.model_name}", disable=len(batches) < 4, leave=False)):
                # the part of this batch's prefix shared with a neighbouring batch is computed once, kept,
                # and extended (e.g. a judge's instruction + demos, then one record's text)
                shared = max((_common_prefix_len(prefixes[b], prefixes[o]) for o in (b - 1, b + 1) if 0 <= o < len(batches)), default=0)
                if shared >= 8:  # worth its own forward pass
                    self._prefix_state(tuple(prefixes[b][:shared]), memo, device)
                state = self._prefix_state(tuple(prefixes[b]), memo, device) if prefixes[b] else None
                values = self._score_batch([rows[r][2] for r in batch], [rows[r][3] for r in batch], len(prefixes[b]), state, device)
                for r, v in zip(batch, values):
                    scores[rows[r][0]][rows[r][1]] = v
        return scores

    def _batch_prefix(self, seqs: list[list[int]], starts: list[int]) -> list[int]:
        """Tokens every row of a batch shares, up to the first choice token (empty without prefix reuse)."""
        if not self.prefix_cache:
            return []
        g = min(starts)
        for s in seqs[1:]:
            g = min(g, _common_prefix_len(seqs[0], s))
        return seqs[0][:g]

    def _score_batches(self, seqs: list[list[int]], starts: list[int]) -> list[list[int]]:
        """Group sorted rows into batches. Without prefix reuse: fixed-size chunks. With it: a row joins
        the current batch only if that costs fewer forward tokens than starting a new batch (cost of a
        batch = shared prefix once + rows x padded rest), so the choices of one prompt stay together."""
        if not self.prefix_cache:
            return [list(range(k, min(k + self.batch_size, len(seqs)))) for k in range(0, len(seqs), self.batch_size)]

        def cost(members: list[int]) -> int:
            g = len(self._batch_prefix([seqs[m] for m in members], [starts[m] for m in members]))
            return g + len(members) * (max(len(seqs[m]) for m in members) - g)

        batches: list[list[int]] = []
        current: list[int] = []
        for k in range(len(seqs)):
            if current and len(current) < self.batch_size and cost(current + [k]) <= cost(current) + len(seqs[k]):
                current.append(k)
            else:
                if current:
                    batches.append(current)
                current = [k]
        if current:
            batches.append(current)
        return batches

    def _prefix_state(self, prefix: tuple, memo: dict, device):
        """KV cache and last-position log-probs of a prefix, extending the longest memoised prefix of it."""
        import torch
        from transformers import DynamicCache

        if prefix in memo:
            memo[prefix] = memo.pop(prefix)  # most recently used last
            return memo[prefix]
        base = max((k for k in memo if len(k) < len(prefix) and prefix[: len(k)] == k), key=len, default=())
        cache = copy.deepcopy(memo[base][0]) if base else DynamicCache(config=self.model.config)
        rest = prefix[len(base):]
        ids = torch.tensor([list(rest)], dtype=torch.long, device=device)
        mask = torch.ones((1, len(prefix)), dtype=torch.long, device=device)
        out = self.model(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True, logits_to_keep=1)
        self._stats["forward_calls"] += 1
        self._stats["forward_tokens"] += len(rest)
        memo[prefix] = (out.past_key_values, torch.log_softmax(out.logits[0, -1].float(), dim=-1), prefix)
        while len(memo) > 4:
            memo.pop(next(iter(memo)))
        return memo[prefix]

    def _score_batch(self, seqs: list[list[int]], starts: list[int], g: int, state, device) -> list[float]:
        import torch

        past, prefix_lp = None, None
        if g > 0:
            cache, prefix_lp, _ = state
            past = copy.deepcopy(cache)
            if len(seqs) > 1:
                past.batch_repeat_interleave(len(seqs))
        pad = self._pad_id()
        tails = [s[g:] for s in seqs]
        width = max(len(t) for t in tails)
        ids = torch.tensor([t + [pad] * (width - len(t)) for t in tails], dtype=torch.long, device=device)
        mask = torch.tensor([[1] * (g + len(t)) + [0] * (width - len(t)) for t in tails], dtype=torch.long, device=device)
        # positions (in the tail) whose logits predict a choice token: start-1 .. len-2
        keep = torch.zeros((len(seqs), width), dtype=torch.bool)
        for r, (s, t) in enumerate(zip(starts, tails)):
            lo = max(s - 1 - g, 0)
            keep[r, lo:len(t) - 1] = True
        out = self.model(input_ids=ids, attention_mask=mask, past_key_values=past, use_cache=past is not None,
                         logits_to_keep=keep.to(device))
        self._stats["forward_calls"] += 1
        self._stats["forward_tokens"] += len(seqs) * width
        logits = out.logits
        if logits.dim() == 3:  # an older transformers that ignored the boolean mask
            logits = logits[keep.to(logits.device)]
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        values, k = [], 0
        for r, (s, seq, t) in enumerate(zip(starts, seqs, tails)):
            total = 0.0
            if s == g:  # the first choice token is predicted by the prefix's last position
                total += float(prefix_lp[seq[g]])
            n_kept = int(keep[r].sum())
            targets = seq[max(s, g + 1):]
            assert len(targets) == n_kept, (len(targets), n_kept)
            if n_kept:
                rows_lp = logprobs[k:k + n_kept]
                total += float(rows_lp.gather(1, torch.tensor(targets, device=rows_lp.device)[:, None]).sum())
            k += n_kept
            values.append(total)
        return values


try:  # subclassing keeps LogitsProcessorList/StoppingCriteriaList happy; transformers is imported lazily elsewhere
    from transformers import LogitsProcessor as _LogitsProcessorBase
    from transformers import StoppingCriteria as _StoppingCriteriaBase
except ImportError:  # pragma: no cover
    _LogitsProcessorBase = _StoppingCriteriaBase = object


class _PhraseGuard:
    """Checks whether the generated text (plus a candidate token) contains a banned phrase."""

    def __init__(self, tokenizer, phrases: Sequence[str], prompt_width: int):
        self.tokenizer = tokenizer
        self.phrases = sorted({p.casefold() for p in phrases if p and p.strip()})
        self.prompt_width = prompt_width
        # a new match must end in the newest token, so decoding a tail this long suffices (a token
        # is at least a quarter of a character, even with byte fallback); the final full-text check
        # still backs this up
        self.window = 4 * max((len(p) for p in self.phrases), default=0) + 16

    def first_match(self, text: str) -> str | None:
        folded = text.casefold()
        return next((p for p in self.phrases if p in folded), None)

    def allows(self, generated: list[int], candidate: int) -> bool:
        text = self.tokenizer.decode(generated[-self.window:] + [candidate], skip_special_tokens=True)
        return self.first_match(text) is None


class _TokenChooser(_LogitsProcessorBase):
    """A logits processor that picks each row's next token itself: argmax (greedy) or a draw from the
    row's own generator after temperature and top-p, re-drawing while the banned-phrase guard rejects
    the token. It returns logits that make the pick the only choice, so ``generate`` runs greedy."""

    def __init__(self, temperature: float, top_p: float, generators, guard: _PhraseGuard | None, eos: list[int]):
        self.temperature = temperature
        self.top_p = top_p
        self.generators = generators
        self.guard = guard
        self.eos = eos

    def _distribution(self, logits):
        import torch

        probs = torch.softmax(logits / self.temperature, dim=-1)
        if self.top_p < 1.0:
            sorted_p, idx = torch.sort(probs, descending=True)
            cum = torch.cumsum(sorted_p, dim=-1)
            drop = (cum - sorted_p) >= self.top_p
            sorted_p[drop] = 0.0
            probs = torch.zeros_like(probs).scatter_(0, idx, sorted_p)
        return probs

    def __call__(self, input_ids, scores):
        import torch

        logits_all = scores.detach().float().cpu()
        choice = torch.empty(scores.shape[0], dtype=torch.long)
        for r in range(scores.shape[0]):
            logits = logits_all[r]
            generated = input_ids[r, self.guard.prompt_width:].tolist() if self.guard else []
            probs = None if self.generators is None else self._distribution(logits)
            for _ in range(_MAX_REDRAWS):
                if probs is None:
                    pick = int(torch.argmax(logits))
                else:
                    if float(probs.sum()) <= 0:
                        pick = self.eos[0] if self.eos else int(torch.argmax(logits))
                        break
                    pick = int(torch.multinomial(probs, 1, generator=self.generators[r]))
                if self.guard is None or pick in self.eos or self.guard.allows(generated, pick):
                    break
                logits[pick] = float("-inf")
                if probs is not None:
                    probs[pick] = 0.0
            else:
                logger.warning("%d tokens in a row would complete a banned phrase; ending the row", _MAX_REDRAWS)
                pick = self.eos[0] if self.eos else pick
            choice[r] = pick
        out = torch.full_like(scores, float("-inf"))
        out[torch.arange(scores.shape[0], device=scores.device), choice.to(scores.device)] = 0.0
        return out


class _StopOnStrings(_StoppingCriteriaBase):
    """Per-row stopping once any stop string appears in the row's decoded continuation."""

    def __init__(self, tokenizer, stops: Sequence[str], prompt_width: int):
        self.tokenizer = tokenizer
        self.stops = [s for s in stops if s]
        self.prompt_width = prompt_width
        self.window = 4 * max((len(s) for s in self.stops), default=0) + 16  # see _PhraseGuard.window

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        done = []
        start = max(self.prompt_width, input_ids.shape[1] - self.window)
        for row in input_ids[:, start:].tolist():
            text = self.tokenizer.decode(row, skip_special_tokens=True)
            done.append(any(s in text for s in self.stops))
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)

