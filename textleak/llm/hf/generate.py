"""Generation: batch planning (which rows share a batch, when a cached prefix is reused) and the
decoding loop, with per-row seeded sampling, stop strings and banned phrases (:mod:`.decode`).

Greedy rows batch freely with left padding. A batch of different prompts sharing a prefix is laid out
as cached prefix + padding + each prompt's own tokens (exact; on sliding-window models only while the
sequence fits the window). When a prompt has ``n`` samples, or prompts share long prefixes, the rows
may instead run one prompt per batch, extending cached prefixes: :meth:`GenerateMixin._prefix_mode`
picks that plan when a cost estimate says it beats batching.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from textleak.llm.base import GenerationParams, PromptError, _common_prefix_len, sample_seed
from textleak.llm.hf.decode import PhraseGuard, StopOnStrings, TokenChooser

logger = logging.getLogger(__name__)

_CALL_COST = 64  # a forward pass's fixed cost, in prompt tokens (see GenerateMixin._prefix_mode)


class GenerateMixin:
    """``_generate`` of :class:`~textleak.llm.hf.TransformersLM` (uses ``encode``, ``_fit``,
    ``_prefix_state``, ``_eos_ids``, ``_pad_id``, ``_device``, ``model``, ``tokenizer``,
    ``batch_size``, ``prefix_cache``)."""

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
        guard = PhraseGuard(self.tokenizer, params.banned_phrases, width) if params.banned_phrases else None
        if not params.greedy or guard is not None:
            generators = None
            if not params.greedy:
                generators = [torch.Generator().manual_seed(s) for s in row_seeds]
            processors.append(TokenChooser(params.temperature, params.top_p, generators, guard, eos))
        stopping = StoppingCriteriaList()
        if params.stop:
            stopping.append(StopOnStrings(self.tokenizer, params.stop, width))
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
