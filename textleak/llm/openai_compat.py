"""OpenAI-compatible HTTP backend: vLLM, TGI, Ollama, llama.cpp server, OpenAI itself.

- **Requests.** Chat-message prompts go to ``/chat/completions``. Plain string prompts go there too as
  one user message (``string_endpoint="chat"``, the default, right for chat models and OpenAI), or
  to ``/completions`` as raw text (``string_endpoint="completions"``, right for base models on vLLM).
- **Concurrency and retries.** Prompts run on a thread pool, at most ``max_concurrency`` requests in
  flight per endpoint; a request that times out, cannot connect, or gets 408/409/429/5xx is retried
  ``max_retries`` times with exponential backoff and jitter (honouring ``Retry-After``). A prompt that
  still fails yields ``None`` entries, which the base class turns into an
  :class:`~textleak.llm.LLMError` or ``None`` per ``on_error``.
- **Several endpoints** (replicas of one model: ``base_url="http://a/v1,http://b/v1"`` or a list):
  each request goes to the endpoint with the fewest requests in flight. An endpoint that fails a
  request is rested for the retry delay (or its ``Retry-After``) and the retry goes to another one,
  so a dead replica costs one failed attempt per request that was on it, never the run.
- **Seeds.** Each prompt's seed goes to the server's ``seed`` field (vLLM honours it; OpenAI makes a
  best effort); the on-disk cache makes reruns identical either way.
- **Banned phrases** cannot be blocked server-side in a portable way, so a sample containing one
  (case-insensitive substring, as in the transformers backend) is redrawn with a new seed up to
  ``max_resamples`` times; if it still contains one, the prompt fails: a banned phrase is never
  returned.
- **Scoring** needs log-probabilities; ``logprob_method`` picks how.
  ``"echo"`` (string prompts only): ``/completions`` with ``echo`` and ``logprobs`` returns the
  log-prob of every token of prompt + choice (vLLM); exact for any choice.
  ``"greedy"``: one greedy request per (prompt, choice) with ``top_logprobs`` (chat) or ``logprobs``
  (completions) and walk the choice along the returned tokens: while the greedy token is a prefix
  of the rest of the choice, its log-prob is added; where the path leaves the choice, the top token
  equal to the rest of the choice finishes it. Exact when the choice leaves the model's greedy
  answer at its last token at most, which is the case of the judge's labels ("...Rating: 2") and of
  single-token choices; a choice whose last piece is not among the top tokens gets ``-inf``; a
  choice that leaves the greedy path earlier cannot be scored from the path and gets NaN, which
  is never cached and which consumers treat as unparsed (never as a low probability).
  ``"auto"`` (default): echo for string prompts, greedy for chat messages. At the first token of a chat answer, leading whitespace is ignored ("2" and " 2" are
  one label, their probabilities summed). Servers without log-probs raise :class:`NotImplementedError`.
- **API key** comes from ``$OPENAI_API_KEY`` or the variable named by ``api_key_env``, read at request
  time (surrounding whitespace stripped); it is never stored on the object, so it never reaches repr,
  logs, ``describe()``, pickles or cache keys. A key with whitespace, control or non-ASCII characters
  inside (``$(cat keyfile)`` of a two-line file) is refused at construction and at request time with
  :class:`APIKeyError`, one line that does not print it. Server messages and local errors are scrubbed
  of every form of it (as is, ``repr``, bytes ``repr``, JSON- and percent-encoded, and each of its
  whitespace-separated pieces) before they are cut or logged.
- **Local errors are not retried**: only timeouts, network errors, a server breaking the protocol
  and the statuses above are; an error raised on this side (an illegal header, an unsupported URL)
  fails the prompt at once.
- **llama.cpp server** (``python -m llama_cpp.server``): its request defaults sample with top-k 40,
  min-p 0.05 and a repetition penalty of 1.1, even at temperature 0; pass
  ``extra_body={"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0}`` for the decoding of the other
  backends, and ``logprob_method="greedy"`` (its echo path sorts the whole vocabulary in Python for
  every prompt token). It answers one request at a time: run several replicas for throughput.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from textleak.cache import DiskCache, content_hash
from textleak.llm.base import GenerationParams, LanguageModel
from textleak.registry import llm_backends

logger = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
_KEY_PIECES = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


class APIKeyError(ValueError):
    """The API key variable holds something that cannot be a key (the message never shows the key)."""


def check_api_key(raw: str, variable: str = "", *, source: str | None = None) -> str:
    """The key in ``raw`` without surrounding whitespace; :class:`APIKeyError` when what is left has
    whitespace, control or non-ASCII characters inside (it could not go into an HTTP header as it is,
    and the HTTP library's error would print it). The error names where the key came from: the
    environment ``variable``, or ``source`` (e.g. an argument) when given."""
    key = raw.strip()
    if key and (not key.isascii() or not key.isprintable() or any(c.isspace() for c in key)):
        what = "whitespace or control characters" if key.isascii() else "non-ASCII characters"
        raise APIKeyError(f"{source or '$' + variable} holds an API key with {what} inside (e.g. a key file of two lines "
                          f"read with $(cat ...)); set it to the key alone (surrounding whitespace is stripped)")
    return key


def secret_forms(raw: str) -> list[str]:
    """Every way ``raw`` (an API key) can show up in a message: as is and stripped, each of its
    whitespace-separated pieces of 4+ characters, and of each its ``repr``, bytes ``repr``, JSON and
    percent encodings. Longest first, so a scrubber replaces whole forms before their parts."""
    from urllib.parse import quote, quote_plus

    bases = {raw, raw.strip()} | {p for p in _KEY_PIECES.split(raw) if len(p) >= 4}
    forms: set[str] = set()
    for b in bases:
        if not b.strip():
            continue
        forms |= {b, repr(b)[1:-1], json.dumps(b)[1:-1], json.dumps(b, ensure_ascii=False)[1:-1], quote(b, safe=""),
                  quote(b), quote_plus(b), repr(b.encode("utf-8"))[2:-1], repr(b.encode("latin-1", "replace"))[2:-1]}
    return sorted((f for f in forms if len(f) >= 4), key=len, reverse=True)


class _Endpoint:
    """One base URL and its state: requests in flight, rested until, counters."""

    def __init__(self, url: str):
        self.url = url
        self.in_flight = 0
        self.rested_until = 0.0
        self.requests = 0
        self.failures = 0


def _split_urls(base_url: "str | Sequence[str]") -> list[str]:
    urls = [u.strip() for u in (base_url.split(",") if isinstance(base_url, str) else base_url)]
    urls = [u.rstrip("/") for u in urls if u]
    if not urls:
        raise ValueError("OpenAICompatibleLM needs a model name and a base_url")
    for u in urls:
        if not u.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {u!r}")
    if len(set(urls)) != len(urls):
        raise ValueError(f"the same base_url is listed twice: {urls}")
    return urls


def _logsumexp(values: Sequence[float]) -> float:
    peak = max(values)
    if peak == float("-inf"):
        return peak
    return peak + math.log(sum(math.exp(v - peak) for v in values))


class _RequestFailed(Exception):
    """A request that failed for good (after retries, or with a non-retryable status)."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


@llm_backends.register("openai")
class OpenAICompatibleLM(LanguageModel):
    """``OpenAICompatibleLM("meta-llama/Llama-3.1-8B-Instruct", "http://localhost:8000/v1")``.

    ``base_url`` may list several replicas of the same model (a comma-separated string or a list).
    Options: ``api_key_env`` (name of the environment variable holding the key; default
    ``OPENAI_API_KEY``; no key is fine for local servers), ``max_concurrency`` (requests in flight
    per endpoint), ``max_retries``,
    ``timeout`` (seconds per request), ``backoff`` (first retry delay, doubled each time, capped at
    ``max_backoff``), ``string_endpoint`` ("chat" or "completions"), ``logprob_method`` ("auto",
    "echo" or "greedy"; see the module doc), ``top_logprobs`` (top tokens asked for when scoring
    along the greedy path; OpenAI allows at most 20), ``max_resamples`` (banned phrases), ``extra_body`` (extra JSON fields for every request,
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
        base_url: "str | Sequence[str]",
        *,
        api_key_env: str = "OPENAI_API_KEY",
        max_concurrency: int = 8,
        max_retries: int = 5,
        timeout: float = 120.0,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        string_endpoint: str = "chat",
        top_logprobs: int = 20,
        logprob_method: str = "auto",
        max_resamples: int = 8,
        extra_body: dict | None = None,
        revision: str = "",
        max_tokens_param: str = "max_tokens",
        use_cache: bool = True,
    ):
        if not model or not base_url:
            raise ValueError("OpenAICompatibleLM needs a model name and a base_url")
        urls = _split_urls(base_url)
        if logprob_method not in ("auto", "echo", "greedy"):
            raise ValueError("logprob_method must be 'auto', 'echo' or 'greedy'")
        if string_endpoint not in ("chat", "completions"):
            raise ValueError("string_endpoint must be 'chat' or 'completions'")
        if max_concurrency < 1 or max_retries < 0:
            raise ValueError("max_concurrency must be >= 1 and max_retries >= 0")
        self.model_name = model
        self.base_urls = urls
        self.base_url = urls[0] if len(urls) == 1 else ",".join(urls)
        self.api_key_env = api_key_env
        self.max_concurrency = int(max_concurrency)
        self.max_retries = int(max_retries)
        self.timeout = float(timeout)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.string_endpoint = string_endpoint
        self.top_logprobs = int(top_logprobs)
        self.logprob_method = logprob_method
        self.max_resamples = int(max_resamples)
        self.extra_body = dict(extra_body or {})
        self.revision = revision
        self.max_tokens_param = max_tokens_param
        self.cache = DiskCache("llm", enabled=use_cache)
        self.__setstate__({})
        self._api_key()  # a malformed key fails here, with one line, before any request

    def __repr__(self) -> str:
        return f"OpenAICompatibleLM({self.model_name!r}, base_url={self.base_url!r})"

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        self._client = None
        self._lock = threading.Lock()
        self._slots = threading.Condition(threading.Lock())
        self._endpoints = [_Endpoint(u) for u in self.base_urls]
        self._jitter = random.Random()
        self._requests_sent = 0

    @property
    def requests_sent(self) -> int:
        """HTTP requests made by this object (retries included)."""
        return self._requests_sent

    @property
    def endpoint_stats(self) -> list[dict[str, Any]]:
        """Per endpoint: requests sent and failed attempts (for tests and monitoring)."""
        return [{"url": e.url, "requests": e.requests, "failures": e.failures} for e in self._endpoints]

    def fingerprint(self) -> str:
        urls = self.base_urls[0] if len(self.base_urls) == 1 else sorted(self.base_urls)
        return content_hash("openai", urls, self.model_name, self.string_endpoint, self.revision, self.extra_body)[:32]

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "base_url": self.base_url}

    # ---- HTTP -----------------------------------------------------------------------------------
    def _http(self):
        with self._lock:
            if self._client is None:
                import httpx

                total = self.max_concurrency * len(self._endpoints)
                limits = httpx.Limits(max_connections=total, max_keepalive_connections=total)
                self._client = httpx.Client(timeout=self.timeout, limits=limits)
            return self._client

    def _api_key(self) -> str:
        """The key, read now from the environment (never stored); :class:`APIKeyError` when malformed."""
        return check_api_key(os.environ.get(self.api_key_env) or "", self.api_key_env)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = self._api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _scrub(self, text: str) -> str:
        """``text`` with every form of the key (:func:`secret_forms`) replaced by ``***``."""
        raw = os.environ.get(self.api_key_env) or ""
        if raw.strip():
            for form in secret_forms(raw):
                text = text.replace(form, "***")
        return text

    def _acquire(self) -> _Endpoint:
        """The endpoint with the fewest requests in flight among those not resting and below
        ``max_concurrency``; waits for a free slot or the end of a rest."""
        with self._slots:
            while True:
                now = time.monotonic()
                ready = [e for e in self._endpoints if e.rested_until <= now and e.in_flight < self.max_concurrency]
                if ready:
                    e = min(ready, key=lambda e: (e.in_flight, e.requests))
                    e.in_flight += 1
                    e.requests += 1
                    return e
                resting = [e.rested_until for e in self._endpoints if e.rested_until > now]
                self._slots.wait(timeout=max(0.005, min(resting) - now) if resting else None)

    def _release(self, e: _Endpoint, rest: float | None = None) -> None:
        with self._slots:
            e.in_flight -= 1
            if rest is not None:
                e.failures += 1
                e.rested_until = max(e.rested_until, time.monotonic() + rest)
            self._slots.notify_all()

    def _post(self, path: str, body: dict) -> dict:
        """POST with retries (on another endpoint when there are several); returns the JSON body or
        raises :class:`_RequestFailed`."""
        import httpx

        payload = {**self.extra_body, **body, "model": self.model_name}
        headers = self._headers()  # APIKeyError here: a configuration error, raised to the caller, never retried
        last = "no attempt"
        status = None
        for attempt in range(self.max_retries + 1):
            retry_after = None
            endpoint = self._acquire()
            url = f"{endpoint.url}/{path}"
            failed = True
            try:
                with self._lock:
                    self._requests_sent += 1
                response = self._http().post(url, json=payload, headers=headers)
                status = response.status_code
                if status == 200:
                    data = response.json()
                    failed = False
                    return data
                last = f"HTTP {status}: {self._scrub(response.text)[:300]}"
                if status not in _RETRY_STATUS:
                    failed = False  # the request is at fault, not the endpoint
                    raise _RequestFailed(last, status)
                retry_after = response.headers.get("retry-after")
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as e:
                last = f"{type(e).__name__}: {self._scrub(str(e))}"
            except json.JSONDecodeError as e:
                last = f"invalid JSON from the server: {self._scrub(str(e))}"
            except _RequestFailed:
                raise
            except Exception as e:  # raised on this side (an illegal header, a bad URL): retrying cannot help
                failed = False
                raise _RequestFailed(f"local error, not retried: {type(e).__name__}: {self._scrub(str(e))[:300]}") from None
            finally:
                delay = None
                if failed:
                    delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + self._jitter.random())
                    if retry_after:
                        try:
                            delay = min(self.max_backoff, max(0.0, float(retry_after)))
                        except ValueError:  # an HTTP date: keep the exponential delay
                            pass
                self._release(endpoint, delay)
            if attempt == self.max_retries:
                break
            others = len(self._endpoints) > 1
            logger.warning("%s %s failed at %s (%s); retry %d/%d %s", self.model_name, path, endpoint.url, last,
                           attempt + 1, self.max_retries,
                           "on the next free endpoint" if others else f"in {delay:.1f}s")
        raise _RequestFailed(last, status)

    def _map(self, fn, items: Sequence) -> list:
        workers = self.max_concurrency * len(self._endpoints)  # the per-endpoint cap is enforced in _acquire
        if len(items) <= 1 or workers == 1:
            return [fn(x) for x in items]
        from tqdm.auto import tqdm

        with ThreadPoolExecutor(min(workers, len(items))) as pool:
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
        except APIKeyError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            logger.error("%s: prompt %d: unexpected response shape (%s)", self.model_name, index, e)
        return [None] * params.n

    def _generate(self, prompts: list, params: GenerationParams, seeds: list[int]) -> list[list[str | None]]:
        return self._map(self._generate_one, [(i, p, params, s) for i, (p, s) in enumerate(zip(prompts, seeds))])

    # ---- scoring --------------------------------------------------------------------------------
    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        # one job per prompt: its choices share one greedy path (one request), or get one echo each
        return self._map(self._score_one, [(i, p, list(cs)) for i, (p, cs) in enumerate(zip(prompts, choices))])

    def _score_one(self, job) -> list[float]:
        index, prompt, choices = job
        try:
            if isinstance(prompt, str) and self.logprob_method in ("auto", "echo"):
                return [self._score_echo(prompt, c) for c in choices]
            return self._score_greedy(prompt, choices)
        except _RequestFailed as e:
            if e.status in (400, 404, 422):
                raise NotImplementedError(
                    f"{self.base_url} did not accept a log-probability request for prompt {index} ({e}); scoring "
                    "needs /completions with echo+logprobs (vLLM) or top log-probs of generated tokens"
                ) from None
            from textleak.llm.base import LLMError

            raise LLMError(f"{self.model_name}: scoring prompt {index} failed: {e}") from None

    def _score_echo(self, prompt: str, choice: str) -> float:
        text = prompt + choice
        data = self._post("completions", {"prompt": text, "max_tokens": 1, "temperature": 0.0, "logprobs": 1, "echo": True})
        lp = data["choices"][0].get("logprobs") or {}
        tokens, offsets, values = lp.get("tokens"), lp.get("text_offset"), lp.get("token_logprobs")
        if not tokens or offsets is None or values is None:
            raise NotImplementedError(f"{self.base_url} returned no echoed token log-probs (needs echo+logprobs, e.g. "
                                      "vLLM); use logprob_method='greedy'")
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

    def _greedy_path(self, prompt, budget: int) -> tuple[list[tuple[str, float, dict[str, float]]], bool, bool]:
        """The greedy continuation: per token (text, log-prob, {top token text: log-prob}); whether
        the prompt went to the chat endpoint; whether the path stopped at the token budget."""
        k = max(1, self.top_logprobs)
        common = {"max_tokens": budget, "temperature": 0.0, "seed": 0}
        if isinstance(prompt, str) and self.string_endpoint == "completions":
            data = self._post("completions", {**common, "prompt": prompt, "logprobs": k})
            choice = data["choices"][0]
            lp = choice.get("logprobs") or {}
            tokens, values, tops = lp.get("tokens"), lp.get("token_logprobs"), lp.get("top_logprobs")
            if tokens is None or values is None:
                raise NotImplementedError(f"{self.base_url} returned no completion log-probs")
            tops = tops or [None] * len(tokens)
            path = [(t, float(v), {str(a): float(b) for a, b in (top or {}).items()}) for t, v, top in zip(tokens, values, tops)]
            return path, False, choice.get("finish_reason") == "length"
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        data = self._post("chat/completions", {**common, "messages": messages, "logprobs": True, "top_logprobs": k})
        choice = data["choices"][0]
        content = ((choice.get("logprobs") or {}).get("content"))
        if content is None:
            raise NotImplementedError(f"{self.base_url} returned no chat logprobs (needs logprobs/top_logprobs)")
        path = []
        for item in content:
            tops: dict[str, float] = {}
            for alt in item.get("top_logprobs") or []:
                tops.setdefault(str(alt.get("token", "")), float(alt["logprob"]))
            path.append((str(item.get("token", "")), float(item["logprob"]), tops))
        return path, True, choice.get("finish_reason") == "length"

    def _score_greedy(self, prompt, choices: list[str]) -> list[float]:
        """log p(choice) for each choice, walked along one greedy path (see the module doc)."""
        if any(not isinstance(c, str) or not c for c in choices):
            raise ValueError("choices must be non-empty strings")
        # English tokens hold three to four characters: try a short path first (each generated token
        # with top log-probs can be costly, e.g. llama-cpp-python sorts the vocabulary for it), and
        # extend it only when a choice is still undecided where the path hit its budget (a token is
        # at least one byte, so the full budget always decides)
        short = max(len(c) // 3 + 2 for c in choices)
        full = max(len(c.encode("utf-8")) + 1 for c in choices)
        path, chat, cut = self._greedy_path(prompt, min(short, full))
        scores = [self._walk(path, chat, c) for c in choices]
        if cut and short < full and any(s is None for s in scores):
            path, chat, cut = self._greedy_path(prompt, full)
            scores = [self._walk(path, chat, c) for c in choices]
        return [float("nan") if s is None else s for s in scores]

    @staticmethod
    def _walk(path, chat: bool, choice: str) -> float | None:
        """Walk ``choice`` along the greedy path: a log-prob, -inf (its next piece is not among the
        top tokens), NaN (it goes on past a token the model did not pick), or None (the path ended
        before the choice was decided)."""
        rest, total = choice, 0.0
        for position, (token, value, tops) in enumerate(path):
            first = chat and position == 0  # the start of a chat answer: leading whitespace is not a label
            if first:
                rest = rest.lstrip() or rest

            def norm(t: str) -> str:
                return t.lstrip() if first else t

            candidates = dict(tops)
            candidates.setdefault(token, value)
            finishing = [lp for t, lp in candidates.items() if norm(t) == rest]
            if finishing:
                return total + _logsumexp(finishing)
            piece = norm(token)
            if piece and rest.startswith(piece):
                total += value
                rest = rest[len(piece):]
                continue
            if any(norm(t) and rest.startswith(norm(t)) for t in candidates):
                return float("nan")
            return float("-inf")
        return None
