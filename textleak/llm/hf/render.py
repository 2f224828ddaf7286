"""Prompts as the model sees them: rendering (raw text, chat template, plain chat) and encoding; the
context policy itself is :class:`textleak.llm.base.LocalTokens`."""

from __future__ import annotations

from typing import Sequence

from textleak.llm.base import plain_chat


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
