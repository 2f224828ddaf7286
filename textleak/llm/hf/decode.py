"""Token-level decoding pieces handed to ``model.generate``: the token chooser (greedy, or a draw
from the row's own seeded generator, re-drawn while a banned phrase would complete), the banned-phrase
guard, and the stop-string criterion."""

from __future__ import annotations

import logging
from typing import Sequence

logger = logging.getLogger(__name__)

_MAX_REDRAWS = 64

try:  # subclassing keeps LogitsProcessorList/StoppingCriteriaList happy; transformers is imported lazily elsewhere
    from transformers import LogitsProcessor as _LogitsProcessorBase
    from transformers import StoppingCriteria as _StoppingCriteriaBase
except ImportError:  # pragma: no cover
    _LogitsProcessorBase = _StoppingCriteriaBase = object


class PhraseGuard:
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


class TokenChooser(_LogitsProcessorBase):
    """A logits processor that picks each row's next token itself: argmax (greedy) or a draw from the
    row's own generator after temperature and top-p, re-drawing while the banned-phrase guard rejects
    the token. It returns logits that make the pick the only choice, so ``generate`` runs greedy."""

    def __init__(self, temperature: float, top_p: float, generators, guard: PhraseGuard | None, eos: list[int]):
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


class StopOnStrings(_StoppingCriteriaBase):
    """Per-row stopping once any stop string appears in the row's decoded continuation.

    Not transformers' ``stop_strings`` (``StopStringCriteria``), which gives the same outputs on the
    test suite but (``benchmarks/bench_llm_stop_strings.py``) also matches a stop string that starts
    in the prompt (an ICL prompt ending in a newline stops at a first newline for a ``\\n\\n`` stop),
    and is rebuilt on every ``generate`` call by a pass over the vocabulary: 3-7 s per call for
    Gemma's 262k tokens here (its cache never hits: the fast tokenizer's ``get_vocab()`` order changes
    between calls).
    """

    def __init__(self, tokenizer, stops: Sequence[str], prompt_width: int):
        self.tokenizer = tokenizer
        self.stops = [s for s in stops if s]
        self.prompt_width = prompt_width
        self.window = 4 * max((len(s) for s in self.stops), default=0) + 16  # see PhraseGuard.window

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        done = []
        start = max(self.prompt_width, input_ids.shape[1] - self.window)
        for row in input_ids[:, start:].tolist():
            text = self.tokenizer.decode(row, skip_special_tokens=True)
            done.append(any(s in text for s in self.stops))
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)
