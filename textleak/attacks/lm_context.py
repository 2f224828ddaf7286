"""A language model's view of the context, for the contextual attacks and mask inference.

Tong et al. approximate Pr(c | x', y) with a BERT pair classifier fine-tuned on shadow sanitizations
(hours of GPU training at their scale). Offline and on a CPU, textleak asks a causal language model
instead: for each target position and each of the mechanism's top-K candidates x', the
log-probability of x' given the words before it, read through the shared
:class:`textleak.llm.LanguageModel` ``score`` (cached on disk by content, shared prompt prefixes
computed once). The default model is the packaged Gemma 3 270M (``"embedded"``); any spec of
:func:`textleak.llm.load_llm` works (``hf:<model>``, or an OpenAI-compatible server with log-probs).

The words before the target are the adversary's best reading of them: each sanitized token replaced
by its context-free Bayesian guess (``context="decoded"``, default), or the sanitized tokens as
released (``context="sanitized"``, the paper's f(c, y)). ``right_context`` appends that many following
(decoded) words to each candidate, so the score is log P(x', right words | left words).

With a local transformers model (the embedded Gemma, ``hf:...``) and ``right_context=0`` the scores
come from one forward pass per sentence: the hidden state before each target position, projected on
the vocabulary there only, gives log P(first piece of x' | left words) for every candidate at once;
for a word of several pieces the rest, log P(other pieces | first piece), is read once per word
without the sentence (kept in the on-disk cache ``word_lm``), an approximation that keeps the
cost at about one forward pass per sentence instead of one per candidate. Other backends (and
``exact=True``) score every candidate with :meth:`LanguageModel.score`, exactly.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Sequence

import numpy as np

logger = logging.getLogger(__name__)

# tokens per second of the embedded Gemma 3 270M on one CPU core (float32, forward only; measured on
# the project's shared 2-core machine, so on the slow side). A full-vocabulary projection costs about
# 1.7 tokens. Used only to announce an estimate before a long run.
_EMBEDDED_TOKENS_PER_CORE_SECOND = 40.0


def estimate_minutes(n_tokens: float, llm="embedded") -> float | None:
    """A rough duration for ``n_tokens`` token-equivalents of the embedded model here (None otherwise)."""
    if llm != "embedded":
        return None
    cores = max(1, min(os.cpu_count() or 1, 8))
    return n_tokens / (_EMBEDDED_TOKENS_PER_CORE_SECOND * cores) / 60.0


class ContextScorer:
    """log P_LM(word | context) for candidate words at positions of token lists."""

    def __init__(self, llm: str = "embedded", right_context: int = 0, max_left_words: int | None = 48,
                 exact: bool = False, batch_size: int = 16, llm_options: dict | None = None):
        self.llm = llm
        self.right_context = right_context
        self.max_left_words = max_left_words
        self.exact = exact
        self.batch_size = batch_size
        self.llm_options = dict(llm_options or {})

    def _lm(self):
        from textleak.llm import load_llm

        return load_llm(self.llm, **self.llm_options)

    def _local(self, lm) -> bool:
        return hasattr(lm, "model") and hasattr(lm, "tokenizer") and getattr(lm, "backend", "") in ("hf", "embedded")

    def next_words(self, contexts: Sequence[Sequence[str]], positions: Sequence[tuple[int, int]],
                   desc: str = "next words") -> list[str]:
        """The model's next word after the words before each (context index, position): a local model
        reads one forward pass per sentence and takes its likeliest word-initial piece; other backends
        generate greedily (four tokens) and keep the first word."""
        lm = self._lm()
        if self._local(lm):
            return _SentencePass(lm, self.max_left_words, self.batch_size).next_words(contexts, positions, desc)
        w = self.max_left_words
        prompts = [" ".join(contexts[r][0 if w is None else max(0, i - w):i]) for r, i in positions]
        outs = lm.generate(prompts, max_new_tokens=4, temperature=0.0, on_error="none")
        return [(o[0] or "").split()[0] if (o[0] or "").split() else "" for o in outs]

    def unconditional(self, words: Sequence[str]) -> dict[str, float]:
        """log P_LM(word) without context (mid-sentence form), for the pointwise-mutual-information score."""
        words = sorted(set(words))
        lm = self._lm()
        if hasattr(lm, "model") and hasattr(lm, "tokenizer") and getattr(lm, "backend", "") in ("hf", "embedded"):
            return dict(zip(words, _SentencePass(lm, None, self.batch_size).unconditional(words)))
        return dict(zip(words, lm.score([""], [[" " + w for w in words]])[0]))

    def prompts(self, tokens: Sequence[str], i: int, candidates: Sequence[str]) -> tuple[str, list[str]]:
        start = 0 if self.max_left_words is None else max(0, i - self.max_left_words)
        left = " ".join(tokens[start:i])
        right = " ".join(tokens[i + 1:i + 1 + self.right_context])
        sep = " " if left else ""
        return left, [sep + c + (" " + right if right else "") for c in candidates]

    def score(self, contexts: Sequence[Sequence[str]], queries: Sequence[tuple[int, int, Sequence[str]]],
              desc: str = "context scores") -> list[np.ndarray]:
        """For each query (context index, position, candidate words): the candidates' log-probabilities."""
        lm = self._lm()
        if not self.exact and self.right_context == 0 and hasattr(lm, "model") and hasattr(lm, "tokenizer") \
                and getattr(lm, "backend", "") in ("hf", "embedded"):
            return _SentencePass(lm, self.max_left_words, self.batch_size).score(contexts, queries, desc)
        prompts, choices = [], []
        for r, i, cands in queries:
            p, c = self.prompts(contexts[r], i, cands)
            prompts.append(p)
            choices.append(c)
        n = sum(map(len, choices))
        minutes = estimate_minutes(2.7 * n + sum(len(p.split()) for p in prompts), self.llm)
        if minutes is not None and minutes > 0.5:
            logger.warning("%s: %d candidate words scored in context by %s, roughly %.0f minutes on this CPU "
                           "(cached: a rerun is free)", desc, n, self.llm, minutes)
        start = time.perf_counter()
        out = lm.score(prompts, choices)
        logger.info("%s: %d scores in %.1f s", desc, n, time.perf_counter() - start)
        return [np.asarray(o, dtype=np.float64) for o in out]


class _SentencePass:
    """log P(word | left words) from one forward pass per sentence (see the module docstring)."""

    def __init__(self, lm, max_left_words: int | None, batch_size: int):
        self.lm = lm
        self.max_left_words = max_left_words
        self.batch_size = batch_size
        self._pieces: dict[tuple[str, bool], list[int]] = {}

    def pieces(self, word: str, first: bool) -> list[int]:
        key = (word, first)
        if key not in self._pieces:
            ids = self.lm.tokenizer(word if first else " " + word, add_special_tokens=False)["input_ids"]
            self._pieces[key] = list(ids) or [self.lm.tokenizer.unk_token_id]
        return self._pieces[key]

    def next_words(self, contexts, positions: Sequence[tuple[int, int]], desc: str = "next words") -> list[str]:
        """The model's most likely next piece before each (context, position), as a word: the argmax
        over pieces that start a word (one forward pass per sentence, like :meth:`score`)."""
        tok = self.lm.tokenizer
        pieces = tok.convert_ids_to_tokens(list(range(len(tok))))
        # mid-sentence: pieces that open a word ("\u2581x"); first word: alphabetic pieces (no markup)
        starts_word = np.asarray([bool(p) and p.startswith("\u2581") and len(p) > 1 for p in pieces])
        alphabetic = np.asarray([bool(p) and p.lstrip("\u2581").isalpha() for p in pieces])
        out: list[str] = [""] * len(positions)

        def pick(q, logits, first_word):
            import torch

            allowed = (alphabetic if first_word else starts_word)[: logits.shape[-1]]
            masked = logits.masked_fill(torch.from_numpy(~allowed).to(logits.device), -torch.inf)
            out[q] = tok.convert_tokens_to_string([tok.convert_ids_to_tokens(int(masked.argmax()))]).strip()

        self._run([(r, i, []) for r, i in positions], contexts, desc, pick)
        return out

    def score(self, contexts, queries, desc: str) -> list[np.ndarray]:
        out: list[np.ndarray] = [np.zeros(0)] * len(queries)
        first_flags: dict[int, bool] = {}

        def take(q, logits, first_word):
            import torch

            first_flags[q] = first_word
            first = [self.pieces(w, first_word)[0] for w in queries[q][2]]
            out[q] = (logits[first] - torch.logsumexp(logits, dim=-1)).double().cpu().numpy()

        n_scores = sum(len(c) for _, _, c in queries)
        started = time.perf_counter()
        self._run(queries, contexts, desc, take)
        rest = self._completions({(w, first_flags[q]) for q in range(len(queries)) for w in queries[q][2]})
        for q, (_, _, cands) in enumerate(queries):
            out[q] = out[q] + np.asarray([rest.get((w, first_flags[q]), 0.0) for w in cands])
        logger.info("%s: %d scores in %.1f s", desc, n_scores, time.perf_counter() - started)
        return out

    def _run(self, queries, contexts, desc: str, take) -> None:
        """One forward pass per sentence (window); ``take(query, logits over the vocabulary at the
        position that predicts the query's word, whether that word opens the sequence)``."""
        import torch
        from tqdm.auto import tqdm

        tok, model = self.lm.tokenizer, self.lm.model
        device = self.lm._device()
        bos = [tok.bos_token_id] if tok.bos_token_id is not None else []
        # one sequence per context (and window): its words up to the deepest target, piece by piece
        by_ctx: dict[int, list[int]] = {}
        for q, (r, i, _) in enumerate(queries):
            by_ctx.setdefault(r, []).append(q)
        jobs = []  # (piece ids, [(query, index of the hidden state that predicts the word)], first word index)
        first_word: dict[int, bool] = {}  # query -> its word opens the sequence (no leading space)
        for r, qs in by_ctx.items():
            words = contexts[r]
            qs = sorted(qs, key=lambda q: queries[q][1])
            while qs:
                start = 0 if self.max_left_words is None else max(0, queries[qs[0]][1] - self.max_left_words)
                mine = [q for q in qs if self.max_left_words is None or queries[q][1] - start <= self.max_left_words]
                last = queries[mine[-1]][1]
                ids, starts = list(bos), []
                for j in range(start, last + 1):
                    starts.append(len(ids))
                    if j < last:
                        ids.extend(self.pieces(words[j], j == start))
                pos = []
                for q in mine:
                    i = queries[q][1]
                    first_word[q] = i == start
                    pos.append((q, starts[i - start] - 1))
                jobs.append((ids, pos))
                qs = qs[len(mine):]
        n_scores = sum(len(c) for _, _, c in queries)
        minutes = estimate_minutes(sum(len(j[0]) for j in jobs) + 1.7 * len(queries) + 0.5 * n_scores, self.lm.backend)
        if minutes is not None and minutes > 0.5:
            logger.warning("%s: %d positions (%d candidate words) in %d sentences read by the embedded model, roughly "
                           "%.0f minutes on this CPU", desc, len(queries), n_scores, len(jobs), minutes)
        weight = model.get_output_embeddings().weight
        jobs.sort(key=lambda j: len(j[0]))
        with torch.inference_mode():
            for b in tqdm(range(0, len(jobs), self.batch_size), desc=desc, disable=len(jobs) <= self.batch_size, leave=False):
                batch = jobs[b:b + self.batch_size]
                width = max(len(j[0]) for j in batch)
                ids = torch.tensor([j[0] + [0] * (width - len(j[0])) for j in batch], device=device)
                mask = torch.tensor([[1] * len(j[0]) + [0] * (width - len(j[0])) for j in batch], device=device)
                hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
                owners = [q for _, qpos in batch for q, _ in qpos]
                h = torch.stack([hidden[bi, pos] for bi, (_, qpos) in enumerate(batch) for _, pos in qpos]).float()
                for c in range(0, len(h), 64):
                    logits = h[c:c + 64] @ weight.T.float()
                    for k, q in enumerate(owners[c:c + 64]):
                        take(q, logits[k], first_word[q])

    def unconditional(self, words: Sequence[str]) -> np.ndarray:
        """log P(" word" | BOS): the model's context-free probability of each word (mid-sentence form)."""
        import torch

        tok, model = self.lm.tokenizer, self.lm.model
        bos = [tok.bos_token_id] if tok.bos_token_id is not None else [tok.eos_token_id]
        with torch.inference_mode():
            logp = torch.log_softmax(model(input_ids=torch.tensor([bos], device=self.lm._device())).logits[0, -1].float(), dim=-1)
        first = np.asarray([self.pieces(w, False)[0] for w in words], dtype=np.int64)
        rest = self._completions({(w, False) for w in words})
        return logp.cpu().numpy()[first].astype(np.float64) + np.asarray([rest.get((w, False), 0.0) for w in words])

    def _completions(self, words: set[tuple[str, bool]]) -> dict[tuple[str, bool], float]:
        """log P(pieces 2..m | BOS, piece 1) of each multi-piece word, computed once (disk cache ``word_lm``)."""
        import torch

        from textleak.cache import DiskCache, content_hash

        multi = sorted(w for w in words if len(self.pieces(*w)) > 1)
        if not multi:
            return {}
        cache = DiskCache("word_lm")
        fp = self.lm.fingerprint()
        keys = {w: content_hash("completion", fp, w[0], w[1]) for w in multi}
        hit = cache.get_many(set(keys.values()))
        todo = [w for w in multi if keys[w] not in hit]
        tok, model = self.lm.tokenizer, self.lm.model
        bos = [tok.bos_token_id] if tok.bos_token_id is not None else []
        fresh = {}
        with torch.inference_mode():
            for b in range(0, len(todo), 64):
                batch = todo[b:b + 64]
                seqs = [bos + self.pieces(*w) for w in batch]
                width = max(map(len, seqs))
                ids = torch.tensor([s + [0] * (width - len(s)) for s in seqs], device=self.lm._device())
                mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs], device=self.lm._device())
                logp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
                for k, (w, s) in enumerate(zip(batch, seqs)):
                    first = len(bos) + 1  # positions of pieces 2..m
                    fresh[keys[w]] = float(sum(logp[k, t - 1, s[t]] for t in range(first, len(s))))
        cache.set_many(fresh)
        hit.update(fresh)
        return {w: hit[keys[w]] for w in multi}


def decode_context(mech, sanitized: Sequence[Sequence[str]], counts: np.ndarray, smoothing: float) -> list[list[str]]:
    """Every sanitized token replaced by its context-free Bayesian guess (words outside the
    mechanism's vocabulary stay as they are)."""
    from textleak.attacks.base import bayes_rank

    flat = [t for toks in sanitized for t in toks]
    guesses = [w[0] for w, _ in bayes_rank(mech, flat, counts, smoothing, k=1)] if flat else []
    out, pos = [], 0
    for toks in sanitized:
        out.append(guesses[pos:pos + len(toks)])
        pos += len(toks)
    return out


WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


def combination_grid(weights: Sequence[float] = WEIGHTS) -> list[tuple[float, float]]:
    """(weight of log P_LM(x' | context), weight of log P_LM(x')) pairs: the language model as a
    likelihood (w, 0), or as pointwise mutual information with the context (w, -w), which leaves word
    frequency to the shadow prior. (0, 0) is the context-free attack."""
    return [(float(w), 0.0) for w in weights] + [(float(w), -float(w)) for w in weights if w > 0]


def best_combination(base: Sequence[np.ndarray], parts: Sequence[Sequence[np.ndarray]], truths: Sequence[int],
                     grid: Sequence[tuple[float, ...]]) -> tuple[tuple[float, ...], dict]:
    """The coefficients c of ``log score + sum_k c_k part_k`` that recover the most ``truths`` (index
    of the true original among each query's candidates, -1 if absent); ties go to the earlier grid
    entry (the grid starts with the context-free (0, 0)). Returns (c, accuracy per c)."""
    acc = {}
    for c in grid:
        hits = [t >= 0 and int(np.argmax(b + sum(ck * pk[q] for ck, pk in zip(c, parts)))) == t
                for q, (b, t) in enumerate(zip(base, truths))]
        acc[tuple(c)] = float(np.mean(hits)) if hits else 0.0
    best = max(grid, key=lambda c: (acc[tuple(c)], -grid.index(c)))
    return tuple(best), acc


def best_weight(base: Sequence[np.ndarray], lm: Sequence[np.ndarray], truths: Sequence[int],
                grid: Sequence[float] = WEIGHTS) -> tuple[float, dict]:
    """:func:`best_combination` with the language model as a likelihood only: (w, accuracy per w)."""
    best, acc = best_combination(base, [lm], truths, [(float(w),) for w in grid])
    return best[0], {c[0]: a for c, a in acc.items()}
