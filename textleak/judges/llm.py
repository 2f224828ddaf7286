"""The LLM judge of seed 000 (appendix C.4): rate each claim 1/2/3 against the linked document.

Two modes share one prompt (task and rubric of appendix C.4, in-context demos as real user/assistant
chat turns, the query as the last user turn):

``mode="sample"`` (the paper): claims go ``claims_per_prompt`` (10) to a prompt; ``n`` (3) samples at
temperature 0.6, top-p 0.9 (the paper's Llama-3-8B settings); each answer is parsed with the regex
cascade of the released code (spec 1.7), out-of-range digits are coerced to 1 (maximum leakage) and a
claim's rating is the mode of its parsed samples, ties to the first sample (``statistics.mode``).
Claims left with fewer than ``n`` parsed samples are re-asked on their own with a new seed, up to
``max_retries`` times; a claim with no parsed sample at the end is ``status="unparsed"``, score None
(never scored as unsupported). A refusal (:mod:`textleak.llm.refusals`) is no vote, is never cached,
and a claim left without votes after one is marked ``detail["refusal"]`` (reports count them).

``mode="logprob"``: for each claim, one scoring call of a single-claim prompt with three choices, the
assistant's answer "**Output**:\n- Claim 1 Similarity Rating: r" for r = 1, 2, 3. The choices share
everything up to the digit, so the shared part's log-probability cancels when the three are
normalised: p over {1, 2, 3} is the model's distribution of the label at the point where the rating
goes. (Scoring whole answers rather than continuing a half-written assistant turn works with every
backend: a chat template always opens a fresh assistant turn.) the exact distribution of the
majority-of-``n`` vote (the sampled judge's aggregation, ties to the first sample) is computed by
enumerating all 3^n outcomes. The rating is the vote's most probable outcome (ties to the lower rating,
i.e. toward leakage); the score is the vote's expected normalised score E[(vote - 1) / 2], so it is
continuous in [0, 1]. In this mode the demos show ratings without explanations (the query asks for the
rating straight away), and the sampling temperature/top-p do not apply (p is the model's distribution
at temperature 1).

Differences from the released code, on purpose: chat messages instead of ``[INST]`` markers; the
query is followed by the assistant turn (the paper's trailing "**Output**:" opens the assistant's
answer, as in the demos); markdown asterisks are stripped before parsing (``strip_markdown=True``) so
"**Claim 1 Similarity Rating:** 2" parses; the first match of a claim number wins.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import math
import re
import statistics
from functools import lru_cache
from typing import Any, Sequence

from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge, normalise
from textleak.llm.base import UsesLLM
from textleak.llm.refusals import is_refusal
from textleak.prompts import load_prompt, load_prompt_json
from textleak.registry import judges
from textleak.text.seeds import derive_seed

logger = logging.getLogger(__name__)

PROMPT_VERSION = "c4-chat-v1"
RATING_NAMES = {1: "Same Information", 2: "Different but Similar Information", 3: "Unsupported"}
LOGPROB_ANSWER = "**Output**:\n- Claim 1 Similarity Rating: {rating}"
LABEL_CHOICES = tuple(LOGPROB_ANSWER.format(rating=r) for r in (1, 2, 3))
DOMAINS = ("medqa", "wildchat")
MAX_VOTE_SAMPLES = 12  # 3^12 = 531,441 outcomes: the exact enumeration stays cheap up to here

_CLAIM_RATING = re.compile(r"Claim (\d+) Similarity Rating: (\d)", re.IGNORECASE)
_BARE_RATING = re.compile(r"Claim Similarity Rating: (\d)", re.IGNORECASE)
_LOOSE_RATING = re.compile(r"Rating.{0,5}?(\d)", re.IGNORECASE)


# ---- parsing and aggregation (pure functions, tested exactly) ------------------------------------
def is_refused(answer: str | None) -> bool:
    """A judge answer that declines the task (:mod:`textleak.llm.refusals`); one that rates claims in
    the prompt's own format ("Claim k Similarity Rating: d") is an answer, whatever its explanations say."""
    return is_refusal(answer) and not _CLAIM_RATING.search((answer or "").replace("*", ""))



def coerce_rating(digit: int) -> int:
    """Digits outside 1..3 become 1, the maximum-leakage rating (the released code's conservative rule)."""
    return digit if digit in (1, 2, 3) else 1


def parse_ratings(text: str | None, n_claims: int, strip_markdown: bool = True) -> list[int | None]:
    """Ratings for the ``n_claims`` claims of one prompt from one answer; None where not found.

    Cascade (spec 1.7): (a) ``Claim k Similarity Rating: d`` assigns claim k; (b) if (a) finds
    nothing, ``Claim Similarity Rating: d`` by position, only when it matches exactly ``n_claims``
    times; (c) otherwise ``Rating.{0,5}?d`` with the same count rule.
    """
    out: list[int | None] = [None] * n_claims
    if not text or n_claims <= 0:
        return out
    if strip_markdown:
        text = text.replace("*", "")
    numbered = _CLAIM_RATING.findall(text)
    if numbered:
        for k, d in numbered:
            idx = int(k) - 1
            if 0 <= idx < n_claims and out[idx] is None:
                out[idx] = coerce_rating(int(d))
        return out
    for pattern in (_BARE_RATING, _LOOSE_RATING):
        found = pattern.findall(text)
        if found and len(found) == n_claims:
            return [coerce_rating(int(d)) for d in found]
    return out


def majority_vote(votes: Sequence[int]) -> int:
    """The most common vote; on a tie, the tied value that appears first (``statistics.mode``)."""
    if not votes:
        raise ValueError("majority_vote needs at least one vote")
    return statistics.mode(votes)


def majority_vote_distribution(p: Sequence[float], n: int = 3) -> dict[int, float]:
    """Exact distribution of the majority-of-``n`` vote when each of ``n`` independent samples is
    rating r with probability ``p[r-1]`` (ties to the first sample, as :func:`majority_vote`).

    Enumerates all 3^n outcomes (``n <= 12``).
    """
    if len(p) != 3:
        raise ValueError(f"need 3 label probabilities, got {len(p)}")
    if not 1 <= n <= MAX_VOTE_SAMPLES:
        raise ValueError(f"n must be in 1..{MAX_VOTE_SAMPLES}, got {n}")
    if any(x < 0 for x in p) or not math.isclose(sum(p), 1.0, rel_tol=0, abs_tol=1e-6):
        raise ValueError(f"label probabilities must be non-negative and sum to 1, got {list(p)}")
    dist = {1: 0.0, 2: 0.0, 3: 0.0}
    for outcome in itertools.product((1, 2, 3), repeat=n):
        prob = 1.0
        for r in outcome:
            prob *= p[r - 1]
        if prob:
            dist[majority_vote(outcome)] += prob
    return dist


def label_probabilities(logprobs: Sequence[float]) -> list[float] | None:
    """Softmax over the three label log-probabilities; None when none is finite or any is NaN or
    missing (a label the backend could not score must not count as improbable)."""
    if len(logprobs) != 3 or any(lp is None or math.isnan(lp) for lp in logprobs):
        return None
    finite = [lp for lp in logprobs if math.isfinite(lp)]
    if not finite:
        return None
    top = max(finite)
    weights = [math.exp(lp - top) if lp is not None and math.isfinite(lp) else 0.0 for lp in logprobs]
    total = sum(weights)
    return [w / total for w in weights]


# ---- prompts ---------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def load_demos(domain: str) -> tuple[dict, ...]:
    """The in-house in-context demos for ``domain`` ("medqa" or "wildchat")."""
    if domain not in DOMAINS:
        raise ValueError(f"judge domain must be one of {DOMAINS}, got {domain!r}")
    return tuple(load_prompt_json(f"judge_demos/{domain}")["demos"])


def format_input(claims: Sequence[str], document: str) -> str:
    lines = "\n".join(f"- Claim {k}: {c}" for k, c in enumerate(claims, 1))
    return load_prompt("judge_input").format(claims=lines, document=document)


def format_output(ratings: Sequence[int], explanations: Sequence[str] | None = None) -> str:
    lines = ["**Output**:"]
    for k, r in enumerate(ratings, 1):
        if explanations is not None:
            lines.append(f"- Explanation: {explanations[k - 1]}")
        lines.append(f"- Claim {k} Similarity Rating: {r} ({RATING_NAMES[r]})")
    return "\n".join(lines)


def build_messages(claims: Sequence[str], document: str, domain: str = "medqa", explanations: bool = True) -> list[dict[str, str]]:
    """Chat messages: task + rubric + first demo input, demo answers as assistant turns, the query last."""
    messages: list[dict[str, str]] = []
    for i, demo in enumerate(load_demos(domain)):
        user = format_input(demo["claims"], demo["document"])
        if i == 0:
            user = load_prompt("judge_task") + "\n\n" + user
        messages.append({"role": "user", "content": user})
        messages.append({"role": "assistant", "content": format_output(demo["ratings"], demo["explanations"] if explanations else None)})
    messages.append({"role": "user", "content": format_input(claims, document)})
    return messages


def build_logprob_prompt(claim: str, document: str, domain: str = "medqa") -> list[dict[str, str]]:
    """Single-claim prompt (demos with ratings only) for the scoring of :data:`LABEL_CHOICES`."""
    messages = build_messages([claim], document, domain, explanations=False)
    messages[-1]["content"] += "\n\n" + load_prompt("judge_logprob_note")
    return messages


# ---- the judge --------------------------------------------------------------------------------------
@judges.register("llm")
class LLMJudge(UsesLLM, Judge):
    """Seed 000's LLM judge; see the module docstring for the two modes."""

    name = "llm"
    needs_llm = True

    def __init__(
        self,
        llm: Any = "embedded",
        mode: str = "sample",
        n: int = 3,
        temperature: float = 0.6,
        top_p: float = 0.9,
        claims_per_prompt: int = 10,
        domain: str = "medqa",
        max_retries: int = 2,
        max_new_tokens: int | None = None,
        strip_markdown: bool = True,
        show_progress: bool = False,
    ):
        if mode not in ("sample", "logprob"):
            raise ValueError(f"mode must be 'sample' or 'logprob', got {mode!r}")
        if not 1 <= int(n) <= MAX_VOTE_SAMPLES:
            raise ValueError(f"n must be in 1..{MAX_VOTE_SAMPLES}, got {n}")
        if int(claims_per_prompt) < 1:
            raise ValueError("claims_per_prompt must be >= 1")
        if int(max_retries) < 0:
            raise ValueError("max_retries must be >= 0")
        if domain not in DOMAINS:
            raise ValueError(f"judge domain must be one of {DOMAINS}, got {domain!r}")
        self.llm = llm
        self.mode = mode
        self.n = int(n)
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.claims_per_prompt = int(claims_per_prompt)
        self.domain = domain
        self.max_retries = int(max_retries)
        self.max_new_tokens = max_new_tokens
        self.strip_markdown = strip_markdown
        self.show_progress = show_progress

    def describe(self) -> dict[str, Any]:
        out = {
            "name": "llm",
            "mode": self.mode,
            "n": self.n,
            "domain": self.domain,
            "prompt": PROMPT_VERSION,
            "llm": self.lm.describe(),  # backend, model and fingerprint: a changed model misses the ratings cache
        }
        if self.mode == "sample":
            out.update(temperature=self.temperature, top_p=self.top_p, claims_per_prompt=self.claims_per_prompt, max_retries=self.max_retries)
        else:
            out["score"] = "expected normalised score of the exact majority-of-n vote distribution"
        return out

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_lm"}

    # ---- rate ---------------------------------------------------------------------------------
    def _rate(self, claims: list[list[str]], documents: list[str], seeds: list[int]) -> list[list[ClaimRating]]:
        results: list[list[ClaimRating | None]] = [[None] * len(cs) for cs in claims]
        todo = [(i, j) for i, cs in enumerate(claims) for j in range(len(cs))]
        if self.mode == "sample":
            self._rate_sampled(claims, documents, seeds, todo, results)
        else:
            self._rate_logprob(claims, documents, todo, results)
        return [list(r) for r in results]  # type: ignore[arg-type]

    def _new_tokens(self, n_claims: int) -> int:
        return int(self.max_new_tokens) if self.max_new_tokens else 64 + 96 * n_claims

    def _rate_sampled(self, claims, documents, seeds, todo, results) -> None:
        votes: dict[tuple[int, int], list[int]] = {key: [] for key in todo}
        refused: dict[tuple[int, int], bool] = {}
        pending = list(todo)
        for attempt in range(self.max_retries + 1):
            if not pending:
                break
            by_doc: dict[int, list[int]] = {}
            for i, j in pending:
                by_doc.setdefault(i, []).append(j)
            chunks: list[tuple[int, list[int]]] = []
            for i, js in by_doc.items():
                for start in range(0, len(js), self.claims_per_prompt):
                    chunks.append((i, js[start : start + self.claims_per_prompt]))
            prompts = [build_messages([claims[i][j] for j in js], documents[i], self.domain) for i, js in chunks]
            chunk_seeds = [derive_seed(seeds[i], js[0], attempt, bits=31) for i, js in chunks]
            # one batched call; the token budget fits the largest chunk (the stop string ends answers early)
            # an answer that does not rate every claim of its prompt is not cached: a rerun asks again
            # a refusal ("I'm sorry, I can't rate these claims", textleak.llm.refusals) gives no vote, even when
            # it happens to hold a digit after "Rating", and is not cached either
            answers = self.lm.generate(
                prompts, max_new_tokens=self._new_tokens(max(len(js) for _, js in chunks)), temperature=self.temperature,
                top_p=self.top_p, n=self.n, seed=chunk_seeds, stop=("**Input**",), on_error="none",
                accept=lambda k, samples: all(not is_refused(s) and None not in parse_ratings(s, len(chunks[k][1]), self.strip_markdown)
                                              for s in samples),
            )
            for (i, js), samples in zip(chunks, answers):
                for sample in samples:
                    if is_refused(sample):
                        for j in js:
                            refused[(i, j)] = True
                        continue
                    for j, r in zip(js, parse_ratings(sample, len(js), self.strip_markdown)):
                        if r is not None and len(votes[(i, j)]) < self.n:
                            votes[(i, j)].append(r)
            pending = [key for key in pending if len(votes[key]) < self.n]
            if pending and attempt < self.max_retries:
                logger.info("LLM judge: re-asking %d claim(s) with missing ratings (retry %d/%d)", len(pending), attempt + 1, self.max_retries)
        for key in todo:
            i, j = key
            v = votes[key]
            if v:
                rating = majority_vote(v)
                results[i][j] = ClaimRating(rating, normalise(rating), OK, {"votes": v})
            elif refused.get(key):
                results[i][j] = ClaimRating(None, None, UNPARSED, {"votes": [], "refusal": True,
                                                                   "reason": f"the judge refused to rate it ({self.max_retries} retries)"})
            else:
                results[i][j] = ClaimRating(None, None, UNPARSED, {"votes": [], "reason": f"no parsable rating after {self.max_retries} retries"})

    def _rate_logprob(self, claims, documents, todo, results) -> None:
        lm = self.lm
        if not lm.supports_scoring:
            raise ValueError(f"mode='logprob' needs a backend that scores choices; {lm.backend}:{lm.model_name} cannot (use mode='sample')")
        prompts = [build_logprob_prompt(claims[i][j], documents[i], self.domain) for i, j in todo]
        logprobs = lm.score(prompts, list(LABEL_CHOICES), accept=lambda _, lps: label_probabilities(lps) is not None)
        for (i, j), lps in zip(todo, logprobs):
            p = label_probabilities(lps)
            if p is None:
                results[i][j] = ClaimRating(None, None, UNPARSED, {"logprobs": lps, "reason": "no finite label log-probability"})
                continue
            dist = majority_vote_distribution(p, self.n)
            rating = max((1, 2, 3), key=lambda r: (dist[r], -r))
            score = sum(dist[r] * normalise(r) for r in (1, 2, 3))
            results[i][j] = ClaimRating(
                rating, min(1.0, max(0.0, score)), OK,
                {"label_p": {str(r): p[r - 1] for r in (1, 2, 3)}, "vote_p": {str(r): dist[r] for r in (1, 2, 3)}},
            )
