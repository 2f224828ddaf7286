"""Scoring choices: log p(choice | prompt) summed over the choice's tokens.

Prompt and choice are tokenized jointly; the choice's tokens are those after the longest common token
prefix of the prompt alone and the joint text (a token straddling the boundary is scored as part of
the choice). Rows are sorted so that rows sharing a token prefix (the choices of one prompt, or many
prompts sharing an instruction and demos) are batched together; their common prefix runs once and
its KV cache is reused for the rest of every row. Logits are computed at the choice positions only.
"""

from __future__ import annotations

import copy

from textleak.llm.base import _common_prefix_len


class ScoreMixin:
    """``_score`` of :class:`~textleak.llm.hf.TransformersLM` (uses ``render``, ``_encode_text``,
    ``_fit``, ``_prefix_state``, ``_pad_id``, ``_device``, ``model``, ``batch_size``, ``prefix_cache``)."""

    def _score(self, prompts: list, choices: list[list[str]]) -> list[list[float]]:
        import torch
        from tqdm.auto import tqdm

        rows = self._choice_rows(prompts, choices)  # (prompt, choice, ids, first choice token)
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
