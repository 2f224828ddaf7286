"""The KV cache of a token prefix, computed once and extended: shared by generation and scoring
(a judge's instruction and demos run once, then each record's text extends them)."""

from __future__ import annotations

import copy


class PrefixKVMixin:
    """Memoised prefix states of :class:`~textleak.llm.hf.TransformersLM` (uses ``model`` and counts
    into ``_stats``)."""

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
