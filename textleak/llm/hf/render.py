"""Prompts as the model sees them: rendering (raw text, chat template, plain chat), encoding, and the
context policy (error, or drop the oldest prompt tokens)."""

from __future__ import annotations

import logging
from typing import Sequence

from textleak.llm.base import PromptError, plain_chat

logger = logging.getLogger(__name__)


class PromptMixin:
    """Rendering, encoding and context fitting of :class:`~textleak.llm.hf.TransformersLM`.

    Uses the model's ``tokenizer``, ``model`` (its config), ``chat_template``, ``truncation`` and
    ``max_context``.
    """

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
