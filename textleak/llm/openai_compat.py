"""OpenAI-compatible HTTP backend: vLLM, TGI, Ollama, llama.cpp server, OpenAI itself.

- **Requests.** Chat-message prompts go to ``/chat/completions``. Plain string prompts go there too as
  one user message (``string_endpoint="chat"``, the default, right for chat models and OpenAI), or
  to ``/completions`` as raw text (``string_endpoint="completions"``, right for base models on vLLM).
- **Concurrency and retries.** Prompts run on a thread pool (``max_concurrency``); a request that
  times out, cannot connect, or gets 408/409/429/5xx is retried ``max_retries`` times with exponential
  backoff and jitter (honouring ``Retry-After``). A prompt that still fails yields ``None`` entries,
  which the base class turns into an :class:`~textleak.llm.LLMError` or ``None`` per ``on_error``.
- **Seeds.** Each prompt's seed goes to the server's ``seed`` field (vLLM honours it; OpenAI makes a
  best effort); the on-disk cache makes reruns identical either way.
- **Banned phrases** cannot be blocked server-side in a portable way, so a sample containing one
  (case-insensitive substring, as in the transformers backend) is redrawn with a new seed up to
  ``max_resamples`` times; if it still contains one, the prompt fails: a banned phrase is never
  returned.
- **Scoring** needs log-probabilities. String prompts use ``/completions`` with ``echo`` and
  ``logprobs`` (vLLM): the log-prob of the choice's tokens inside prompt + choice. Chat prompts use
  ``/chat/completions`` with ``top_logprobs`` over the first answer token, which scores single-token
  choices (e.g. ratings "1"/"2"/"3"); a choice outside the returned top tokens gets ``-inf``.
  Servers without these features raise :class:`NotImplementedError`.
- **API key** comes from ``$OPENAI_API_KEY`` or the variable named by ``api_key_env``, read at request
  time; it is never stored on the object, so it never reaches repr, logs, ``describe()``, pickles or
  cache keys.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from textleak.cache import DiskCache, content_hash
from textleak.llm.base import GenerationParams, LanguageModel
from textleak.registry import llm_backends

logger = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class _RequestFailed(Exception):
    """A request that failed for good (after retries, or with a non-retryable status)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


@llm_backends.register("openai")
class OpenAICompatibleLM(LanguageModel):
    """``OpenAICompatibleLM("meta-llama/Llama-3.1-8B-Instruct", "http://localhost:8000/v1")``.

    Options: ``api_key_env`` (name of the environment variable holding the key; default
    ``OPENAI_API_KEY``; no key is fine for local servers), ``max_concurrency``, ``max_retries``,
    ``timeout`` (seconds per request), ``backoff`` (first retry delay, doubled each time, capped at
    ``max_backoff``), ``string_endpoint`` ("chat" or "completions"), ``top_logprobs`` (for chat
    scoring), ``max_resamples`` (banned phrases), ``extra_body`` (extra JSON fields for every request,
    e.g. vLLM's ``{"top_k": 20}``), ``revision`` (any string you bump when the server's weights change:
    part of the fingerprint), ``max_tokens_param`` ("max_completion_tokens" for OpenAI reasoning
    models), ``use_cache``.
    """

    backend = "openai"

    @classmethod
    def from_spec(cls, body: str, **options: Any) -> "OpenAICompatibleLM":
        """``<model>@<base_url>``."""
        if "@" not in body:
            raise ValueError(f"openai spec must be 'openai:<model>@<base_url>', got 'openai:{body}'")
        model, base_url = body.split("@", 1)
        return cls(model=model, base_url=base_url, **options)

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 8,
        max_retries: int = 5,
        timeout: float = 120.0,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        string_endpoint: str = "chat",
        top_logprobs: int = 20,
        max_resamples: int = 8,
        extra_body: dict | None = None,
        revision: str = "",
        max_tokens_param: str = "max_tokens",
        use_cache: bool = True,
    ):
        if not model or not base_url:
            raise ValueError("OpenAICompatibleLM needs a model name and a base_url")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {base_url!r}")
        if string_endpoint not in ("chat", "completions"):
            raise ValueError("string_endpoint must be 'chat' or 'completions'")
        if max_concurrency < 1 or max_retries < 0:
            raise ValueError("max_concurrency must be >= 1 and max_retries >= 0")
        self.model_name = model
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.max_concurrency = int(max_concurrency)
        self.max_retries = int(max_retries)
        self.timeout = float(timeout)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.string_endpoint = string_endpoint
        self.top_logprobs = int(top_logprobs)
        self.max_resamples = int(max_resamples)
        self.extra_body = dict(extra_body or {})
        self.revision = revision
        self.max_tokens_param = max_tokens_param
        self.cache = DiskCache("llm", enabled=use_cache)
        self._client = None
        self._lock = threading.Lock()
        self._jitter = random.Random()
        self._requests_sent = 0

    def __repr__(self) -> str:
        return f"OpenAICompatibleLM({self.model_name!r}, base_url={self.base_url!r})"

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._client = None
        self._lock = threading.Lock()
        self._jitter = random.Random()
        self._requests_sent = 0

    @property
    def requests_sent(self) -> int:
        """HTTP requests made by this object (retries included)."""
        return self._requests_sent

    def fingerprint(self) -> str:
        return content_hash("openai", self.base_url, self.model_name, self.string_endpoint, self.revision, self.extra_body)[:32]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "base_url": self.base_url}

    # ---- HTTP -----------------------------------------------------------------------------------
    def _http(self):
        with self._lock:
            if self._client is None:
                import httpx

                limits = httpx.Limits(max_connections=self.max_concurrency, max_keepalive_connections=self.max_concurrency)
                self._client = httpx.Client(timeout=self.timeout, limits=limits)
            return self._client

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _scrub(self, text: str) -> str:
        key = os.environ.get(self.api_key_env)
        return text.replace(key, "***") if key else text

    def _post(self, path: str, body: dict) -> dict:
        """POST with retries; returns the JSON body or raises :class:`_RequestFailed`."""
        import httpx

        url = f"{self.base_url}/{path}"
        payload = {**self.extra_body, **body, "model": self.model_name}
        last = "no attempt"
        status = None
        for attempt in range(self.max_retries + 1):
            retry_after = None
            try:
                with self._lock:
                    self._requests_sent += 1
                response = self._http().post(url, json=payload, headers=self._headers())
                status = response.status_code
                if status == 200:
                    return response.json()
                last = f"HTTP {status}: {self._scrub(response.text[:300])}"
                if status not in _RETRY_STATUS:
                    raise _RequestFailed(last, status)
                retry_after = response.headers.get("retry-after")
            except (httpx.TimeoutException, httpx.TransportError) as e:
                last = f"{type(e).__name__}: {self._scrub(str(e))}"
            except json.JSONDecodeError as e:
                last = f"invalid JSON from the server: {e}"
            if attempt == self.max_retries:
                break
            delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + self._jitter.random())
            if retry_after:
                try:
                    delay = min(self.max_backoff, max(0.0, float(retry_after)))
                except ValueError:  # an HTTP date: keep the exponential delay
                    pass
            logger.warning("%s %s failed (%s); retry %d/%d in %.1fs", self.model_name, path, last, attempt + 1,
                           self.max_retries, delay)
            time.sleep(delay)
        raise _RequestFailed(last, status)

    def _map(self, fn, items: Sequence) -> list:
        if len(items) <= 1 or self.max_concurrency == 1:
            return [fn(x) for x in items]
        from tqdm.auto import tqdm

        with ThreadPoolExecutor(self.max_concurrency) as pool:
            return list(tqdm(pool.map(fn, items), total=len(items), desc=self.model_name, disable=len(items) < 16, leave=False))

    # ---- generation -----------------------------------------------------------------------------
    def _request_samples(self, prompt, params: GenerationParams, seed: int, n: int) -> list[str]:
        body: dict[str, Any] = {self.max_tokens_param: params.max_new_tokens, "seed": seed}
        if n > 1:
            body["n"] = n
        if params.greedy:
            body["temperature"] = 0.0
        else:
            body.update(temperature=params.temperature, top_p=params.top_p)
        if params.stop:
            body["stop"] = list(params.stop)[:4]
        if isinstance(prompt, str) and self.string_endpoint == "completions":
            data = self._post("completions", {**body, "prompt": prompt})
            texts = [c.get("text") or "" for c in sorted(data["choices"], key=lambda c: c.get("index", 0))]
        else:
            messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
            data = self._post("chat/completions", {**body, "messages": messages})
            texts = [(c.get("message") or {}).get("content") or "" for c in sorted(data["choices"], key=lambda c: c.get("index", 0))]
        if not texts:
            raise _RequestFailed("server returned no choices")
        out = []  # servers that ignore ``n`` (e.g. Ollama) return fewer: the caller asks again
        for text in texts[:n]:
            cut = min((p for p in (text.find(s) for s in params.stop) if p >= 0), default=-1)
            out.append(text[:cut] if cut >= 0 else text)
        return out

    def _generate_one(self, job) -> list[str | None]:
        index, prompt, params, seed = job
        banned = [p.casefold() for p in params.banned_phrases if p and p.strip()]
        kept: list[str] = []
        try:
            rejected = 0
            for attempt in range(self.max_resamples + params.n):
                need = params.n - len(kept)
                samples = self._request_samples(prompt, params, seed + attempt * 1_000_003, need)
                clean = [s for s in samples if not any(b in s.casefold() for b in banned)]
                rejected += len(samples) - len(clean)
                kept += clean
                if len(kept) >= params.n:
                    return kept[: params.n]
                if rejected > self.max_resamples:
                    break
            logger.error("prompt %d: %d samples contained a banned phrase (max_resamples=%d)", index, rejected, self.max_resamples)
        except _RequestFailed as e:
            logger.error("%s: prompt %d failed: %s", self.model_name, index, e)
        except (KeyError, TypeError, ValueError) as e:
            logger.error("%s: prompt %d: unexpected response shape (%s)", self.model_name, index, e)
        return [None] * params.n

    def _generate(self, prompts: list, params: GenerationParams, seeds: list[int]) -> list[list[str | None]]:
        return self._map(self._generate_one, [(i, p, params, s) for i, (p, s) in enumerate(zip(prompts, seeds))])

    # ---- scoring --------------------------------------------------------------------------------
    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        jobs = [(i, p, c) for i, (p, cs) in enumerate(zip(prompts, choices)) for c in cs]
        values = self._map(self._score_one, jobs)
        out, k = [], 0
        for cs in choices:
            out.append(values[k:k + len(cs)])
            k += len(cs)
        return out

    def _score_one(self, job) -> float:
        index, prompt, choice = job
        try:
            if isinstance(prompt, str):
                return self._score_echo(prompt, choice)
            return self._score_top_logprobs(prompt, choice)
        except _RequestFailed as e:
            if e.status in (400, 404, 422):
                raise NotImplementedError(
                    f"{self.base_url} did not accept a log-probability request for prompt {index} ({e}); scoring "
                    "needs /completions with echo+logprobs (vLLM) for string prompts, or chat top_logprobs"
                ) from None
            from textleak.llm.base import LLMError

            raise LLMError(f"{self.model_name}: scoring prompt {index} failed: {e}") from None

    def _score_echo(self, prompt: str, choice: str) -> float:
        text = prompt + choice
        data = self._post("completions", {"prompt": text, "max_tokens": 1, "temperature": 0.0, "logprobs": 1, "echo": True})
        lp = data["choices"][0].get("logprobs") or {}
        tokens, offsets, values = lp.get("tokens"), lp.get("text_offset"), lp.get("token_logprobs")
        if not tokens or offsets is None or values is None:
            raise NotImplementedError(f"{self.base_url} returned no echoed token log-probs (needs echo+logprobs, e.g. vLLM)")
        total, counted = 0.0, 0
        for tok, off, value in zip(tokens, offsets, values):
            end = off + len(tok)
            if end <= len(prompt) or off >= len(text):
                continue  # prompt tokens, and the one generated token after the choice
            if value is None:
                raise NotImplementedError("the server gave no log-prob for the first token; prepend a BOS-like prefix")
            total += float(value)
            counted += 1
        if counted == 0:
            raise ValueError(f"choice {choice!r} got no tokens from the server")
        return total

    def _score_top_logprobs(self, messages: list, choice: str) -> float:
        body = {"messages": messages, "max_tokens": 1, "temperature": 0.0, "logprobs": True, "top_logprobs": self.top_logprobs}
        data = self._post("chat/completions", body)
        content = ((data["choices"][0].get("logprobs") or {}).get("content")) or []
        if not content:
            raise NotImplementedError(f"{self.base_url} returned no chat logprobs (needs logprobs/top_logprobs)")
        wanted = choice.strip()
        if not wanted or any(ch.isspace() for ch in wanted):
            raise NotImplementedError(
                f"chat scoring handles single-token choices only, got {choice!r}; use a string prompt on a server "
                "with /completions echo (vLLM) for longer choices"
            )
        matches = [float(t["logprob"]) for t in content[0].get("top_logprobs", []) if t.get("token", "").strip() == wanted]
        if not matches:
            return float("-inf")
        peak = max(matches)
        return peak + math.log(sum(math.exp(m - peak) for m in matches))
