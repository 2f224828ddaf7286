"""The one LanguageModel interface every LLM consumer in textleak uses.

Backends implement two primitives on uncached work: ``_generate`` and ``_score``. The public
``generate`` and ``score`` put every call behind the on-disk cache, keyed by backend, model
fingerprint, prompt, parameters and per-prompt seed, so results do not depend on batching and a
rerun or an interrupted run costs nothing twice.
"""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, Union

from textleak.cache import DiskCache, cached_map, content_hash, file_hash, model_cache_root
from textleak.text.seeds import derive_seed

logger = logging.getLogger(__name__)

Message = dict  # {"role": "system" | "user" | "assistant", "content": str}
Prompt = Union[str, Sequence[Message]]


class LLMError(RuntimeError):
    """A backend failed for a prompt after its retries (the message names the prompt index)."""


class PromptError(ValueError):
    """A prompt the backend cannot take as it is (e.g. longer than the model's context).

    Backends raise it with the prompt's index in the list they were handed; the public ``generate`` and
    ``score`` re-raise it with the index in the caller's list, so the message names the caller's record.
    """

    def __init__(self, index: int, problem: str):
        self.index = index
        self.problem = problem
        super().__init__(f"prompt {index}: {problem}")


@dataclass(frozen=True)
class GenerationParams:
    """Decoding parameters; part of every cache key."""

    max_new_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    n: int = 1
    stop: tuple[str, ...] = ()
    banned_phrases: tuple[str, ...] = ()

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0

    def key(self) -> dict[str, Any]:
        return asdict(self)


def normalize_prompt(prompt: Prompt) -> str | list[dict[str, str]]:
    """Validate a prompt: a plain string, or a list of {role, content} chat messages."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, (list, tuple)) and prompt:
        msgs = []
        for m in prompt:
            if not isinstance(m, dict) or "role" not in m or "content" not in m:
                raise TypeError(f"chat messages must be dicts with 'role' and 'content', got {m!r}")
            if m["role"] not in ("system", "user", "assistant"):
                raise ValueError(f"unknown chat role {m['role']!r}")
            if not isinstance(m["content"], str):
                raise TypeError(f"message content must be a string, got {type(m['content']).__name__}")
            msgs.append({"role": m["role"], "content": m["content"]})
        return msgs
    raise TypeError(f"a prompt is a string or a non-empty list of chat messages, got {type(prompt).__name__}")


# ---- helpers shared by the local backends (transformers, llama.cpp) -------------------------------
def plain_chat(messages: Sequence[Message]) -> str:
    """Render chat messages as plain text for a tokenizer without a chat template (a base model)."""
    names = {"system": "System", "user": "User", "assistant": "Assistant"}
    parts = [f"{names[m['role']]}: {m['content']}" for m in messages]
    return "\n\n".join(parts) + "\n\nAssistant:"


def sample_seed(seed: int, sample_index: int) -> int:
    """The generator seed of one sampled row: a stable function of the prompt's seed and sample index."""
    return derive_seed(int(seed), "sample", int(sample_index))


def _common_prefix_len(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _cached_file_hash(path: Path) -> str:
    """SHA-256 of a file, memoised by (path, size, mtime) so big weight files are hashed once."""
    st = path.stat()
    memo = DiskCache("file_hashes", root=model_cache_root())
    key = content_hash(str(path.resolve()), st.st_size, st.st_mtime_ns)
    got = memo.get(key)
    if got is None:
        got = file_hash(path)
        memo.set(key, got)
    return got


def _seeds(seed: int | Sequence[int], n_prompts: int) -> list[int]:
    if isinstance(seed, int):
        return [seed] * n_prompts
    seeds = list(seed)
    if len(seeds) != n_prompts:
        raise ValueError(f"got {len(seeds)} seeds for {n_prompts} prompts")
    return [int(s) for s in seeds]


class LocalTokens:
    """What backends that tokenise in-process (transformers, llama.cpp) share: the context policy and
    the token rows of choice scoring. The backend provides ``render(prompt) -> (text, add_special)``,
    ``_encode_text(text, add_special)``, ``context_length()``, ``truncation`` and ``_n_protected(ids)``
    (tokens at the start that truncation must keep, e.g. BOS)."""

    truncation: str

    def _fit(self, index: int, ids: list[int], budget: int, what: str) -> tuple[list[int], int]:
        """Apply the context policy; returns the ids and how many prompt tokens were dropped."""
        limit = self.context_length()  # type: ignore[attr-defined]
        if len(ids) + budget <= limit:
            return ids, 0
        problem = (f"{len(ids)} tokens + {what} exceed the model's context of {limit} tokens "
                   f"(pass truncation='left' to drop the oldest prompt tokens, or shorten the record)")
        if self.truncation == "error":
            raise PromptError(index, problem)
        keep_head = self._n_protected(ids)  # type: ignore[attr-defined]
        drop = len(ids) + budget - limit
        if drop > len(ids) - keep_head - 1:
            raise PromptError(index, problem + "; even truncated, nothing of the prompt would remain")
        logger.warning("prompt %d: dropping its first %d tokens to fit the context of %d tokens", index, drop, limit)
        return ids[:keep_head] + ids[keep_head + drop:], drop

    def _choice_rows(self, prompts: list, choices: list[list[str]]) -> list[tuple[int, int, list[int], int]]:
        """``(prompt, choice, token ids, index of the first choice token)`` per scored choice, fitted to
        the context; a choice that adds no token, or a prompt with nothing to condition on, is an error."""
        rows: list[tuple[int, int, list[int], int]] = []
        for i, (prompt, options) in enumerate(zip(prompts, choices)):
            text, add_special = self.render(prompt)  # type: ignore[attr-defined]
            prompt_ids = self._encode_text(text, add_special)  # type: ignore[attr-defined]
            for j, choice in enumerate(options):
                if not isinstance(choice, str) or not choice:
                    raise PromptError(i, f"choice {j} must be a non-empty string, got {choice!r}")
                joint = self._encode_text(text + choice, add_special)  # type: ignore[attr-defined]
                start = _common_prefix_len(prompt_ids, joint)
                if start >= len(joint):
                    raise PromptError(i, f"choice {j} ({choice!r}) adds no tokens to the prompt")
                if start == 0:
                    raise PromptError(i, "the prompt is empty and the tokenizer adds no BOS token: nothing to condition on")
                n_choice = len(joint) - start
                head, dropped = self._fit(i, joint[:start], n_choice, f"choice {j} ({n_choice} tokens)")
                rows.append((i, j, head + joint[start:], start - dropped))
        return rows


class UsesLLM:
    """For components configured with an LLM (``self.llm``: a spec string or a LanguageModel): ``self.lm``
    loads it on first use, once; the loaded model lives in ``_lm``, which pickling drops.
    ``embedded_warning``, when set, is logged if the spec is the embedded base model."""

    llm: Any
    embedded_warning: str | None = None

    @property
    def lm(self) -> "LanguageModel":
        lm = self.__dict__.get("_lm")
        if lm is None:
            from textleak.llm import load_llm

            lm = load_llm(self.llm)
            if self.embedded_warning and self.llm == "embedded":
                logger.warning(self.embedded_warning)
            self.__dict__["_lm"] = lm
        return lm


class LanguageModel(ABC):
    """Base class of all backends. Subclasses set ``backend`` and ``model_name`` and implement
    ``fingerprint``, ``_generate`` and (when they can) ``_score``. Configuration lives in plain
    attributes; runtime state (loaded weights, HTTP clients) in attributes whose names start with
    ``_``, which pickling drops and the backend reloads lazily."""

    backend: str = "abstract"
    cache_chunk: int = 64  # prompts per backend call; each finished chunk is saved to the cache
    model_name: str = ""
    cache: DiskCache | None = None

    @classmethod
    def from_spec(cls, body: str, **options: Any) -> "LanguageModel":
        """The backend for the part of an LLM spec after ``<backend>:`` (``hf:<id>`` gives ``<id>``)."""
        return cls(body, **options)

    # ---- to implement -------------------------------------------------------------------------
    @abstractmethod
    def fingerprint(self) -> str:
        """Identity of the model weights/endpoint (e.g. file hash or Hub revision): changes it, misses the cache."""

    @abstractmethod
    def _generate(self, prompts: list, params: GenerationParams, seeds: list[int]) -> list[list[str | None]]:
        """Generate ``params.n`` continuations per prompt. A failed prompt yields ``None`` entries."""

    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        """Log-probability of each choice as the continuation of its prompt."""
        raise NotImplementedError(f"backend {self.backend!r} cannot score choices (no log-probabilities)")

    @property
    def supports_scoring(self) -> bool:
        return type(self)._score is not LanguageModel._score

    # ---- public, cached -----------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """What goes into reports: backend, model and fingerprint."""
        return {"backend": self.backend, "model": self.model_name, "fingerprint": self.fingerprint()}

    def _cache(self) -> DiskCache:
        if self.cache is None:
            self.cache = DiskCache("llm")
        return self.cache

    def generate(
        self,
        prompts: Sequence[Prompt],
        max_new_tokens: int = 256,
        temperature: float = 0.0,
        top_p: float = 1.0,
        n: int = 1,
        seed: int | Sequence[int] = 0,
        stop: Sequence[str] = (),
        banned_phrases: Sequence[str] = (),
        on_error: str = "raise",
        accept: Callable[[int, list[str | None]], bool] | None = None,
    ) -> list[list[str | None]]:
        """``n`` completions for each prompt (a list of ``n`` strings per prompt).

        ``seed`` is one int or one per prompt (use the record index). With ``on_error="none"`` a
        prompt the backend could not answer yields ``None`` entries (never cached); with
        ``"raise"`` an :class:`LLMError` names the first failed prompt. ``accept(i, samples)``, when
        given, says whether prompt i's samples are usable (e.g. they parse): samples it rejects are
        returned but not cached, so a rerun (after a server is fixed) asks again.
        """
        if on_error not in ("raise", "none"):
            raise ValueError("on_error must be 'raise' or 'none'")
        norm = [normalize_prompt(p) for p in prompts]
        params = GenerationParams(max_new_tokens, float(temperature), float(top_p), int(n), tuple(stop), tuple(banned_phrases))
        if params.n < 1:
            raise ValueError("n must be >= 1")
        if params.max_new_tokens < 1:
            raise ValueError("max_new_tokens must be >= 1")
        if not 0.0 < params.top_p <= 1.0 or params.temperature < 0.0:
            raise ValueError("need 0 < top_p <= 1 and temperature >= 0")
        seeds = _seeds(seed, len(norm))
        fp = self.fingerprint()
        keys = [
            content_hash("generate", self.backend, fp, p, params.key(), None if params.greedy else s)
            for p, s in zip(norm, seeds)
        ]

        def compute(chunk: list[int]) -> list[list[str | None]]:
            try:
                outs = [list(o) for o in self._generate([norm[i] for i in chunk], params, [seeds[i] for i in chunk])]
            except PromptError as e:
                raise PromptError(chunk[e.index], e.problem) from None
            for i, out in zip(chunk, outs):
                if len(out) != params.n:
                    raise LLMError(f"backend returned {len(out)} samples for prompt {i}, expected {params.n}")
            return outs

        def raise_on_failure(chunk: list[int], outs: list[list[str | None]]) -> None:
            failed = next((i for i, out in zip(chunk, outs) if any(o is None for o in out)), None)
            if failed is not None and on_error == "raise":
                raise LLMError(f"{self.backend}:{self.model_name} failed on prompt {failed}")

        # chunks are cached as they finish, so an interrupted or failed run keeps what it computed;
        # failed prompts (None samples) are never cached
        outs = cached_map(keys, compute, self._cache(), chunk_size=self.cache_chunk,
                          keep=lambda i, out: all(o is not None for o in out) and (accept is None or accept(i, out)),
                          # a damaged entry ("abc" would read as three samples) is recomputed, never used
                          valid=lambda i, out: isinstance(out, list) and len(out) == params.n and all(isinstance(o, str) for o in out),
                          after_chunk=raise_on_failure)
        return [list(o) for o in outs]

    def score(self, prompts: Sequence[Prompt], choices: Sequence[str] | Sequence[Sequence[str]],
              accept: Callable[[int, list[float]], bool] | None = None) -> list[list[float]]:
        """Log-probability of each choice as the continuation of each prompt.

        ``choices`` is one list shared by every prompt, or one list per prompt. ``-inf``: the choice
        is (practically) impossible; NaN: the backend could not score it (not cached; treat as
        unparsed, never as a low probability). ``accept(i, logprobs)`` says whether prompt i's scores
        are usable; rejected ones are returned but not cached either.
        """
        norm = [normalize_prompt(p) for p in prompts]
        if choices and all(isinstance(c, str) for c in choices):
            per_prompt = [list(choices)] * len(norm)
        else:
            per_prompt = [list(c) for c in choices]
            if len(per_prompt) != len(norm):
                raise ValueError(f"got {len(per_prompt)} choice lists for {len(norm)} prompts")
        if any(not c for c in per_prompt):
            raise ValueError("every prompt needs at least one choice")
        fp = self.fingerprint()
        keys = [content_hash("score", self.backend, fp, p, c) for p, c in zip(norm, per_prompt)]

        def compute(chunk: list[int]) -> list[list[float]]:
            try:
                outs = self._score([norm[i] for i in chunk], [per_prompt[i] for i in chunk])
            except PromptError as e:
                raise PromptError(chunk[e.index], e.problem) from None
            return [[float(x) for x in out] for out in outs]

        # NaN means "could not be scored" (e.g. a server's greedy path left the choice): never cached
        keep = lambda i, v: not any(math.isnan(x) for x in v) and (accept is None or accept(i, v))  # noqa: E731
        valid = lambda i, v: (isinstance(v, list) and len(v) == len(per_prompt[i])  # noqa: E731 - a damaged entry is a miss
                              and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v))
        return [list(o) for o in cached_map(keys, compute, self._cache(), chunk_size=self.cache_chunk, keep=keep, valid=valid)]

    def __getstate__(self) -> dict:
        """Only the configuration travels (to ``datasets.map`` workers and the fingerprint hasher)."""
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
