"""Token ids for an encoder's texts and (a, b) pairs, each distinct text tokenised once.

Calling a Hugging Face tokenizer on a list of pairs tokenises a claim again for every span it is
paired with and converts every result into Python dicts; on the judge's 2-core benchmark that was
a quarter of its time outside the model's forward. :class:`EncoderInputs` tokenises each distinct
text once in Rust (no special tokens), then adds the model's own template (``[CLS] a [SEP] b [SEP]``
for BERT), read off the tokenizer by a probe at construction. A text or pair longer than
``max_length`` goes through the tokenizer's own truncation, so the ids are always the tokenizer's
(a test compares them on texts of every length); a tokenizer the probe cannot read (a slow one,
left truncation) is simply called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np


@dataclass
class _Template:
    """Special ids and token types around one sequence (``before``, ``after``) or two (plus ``between``)."""

    before: list[int]
    before_types: list[int]
    between: list[int]
    between_types: list[int]
    after: list[int]
    after_types: list[int]
    first_type: int
    second_type: int

    @property
    def added(self) -> int:
        return len(self.before) + len(self.between) + len(self.after)


class EncoderInputs:
    """Ids, token types and character offsets for texts and pairs, as ``tokenizer(...)`` gives them
    with ``truncation=True`` (longest first for pairs) at ``max_length``."""

    def __init__(self, tokenizer: Any, max_length: int):
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self._backend = None
        self._single: _Template | None = None
        self._pair: _Template | None = None
        if getattr(tokenizer, "is_fast", False) and getattr(tokenizer, "truncation_side", "right") == "right":
            from tokenizers import Tokenizer

            # private copies, their settings ours: one tokenises whole texts, the other truncates and adds the template
            saved = tokenizer.backend_tokenizer.to_str()
            self._backend, self._truncator = Tokenizer.from_str(saved), Tokenizer.from_str(saved)
            for backend in (self._backend, self._truncator):
                backend.no_padding()
            self._backend.no_truncation()
            self._truncator.enable_truncation(self.max_length, strategy="longest_first")
            self._single = self._probe(pair=False)
            self._pair = self._probe(pair=True)
            if self._single is None or self._pair is None:
                self._backend = None

    @property
    def fast(self) -> bool:
        """Whether texts are tokenised once and templated here (else the tokenizer is called)."""
        return self._backend is not None

    def _probe(self, pair: bool) -> _Template | None:
        """The template, read from the tokenizer's own output on a probe, and checked on a second one."""
        backend = self._backend
        a, b = backend.encode_batch(["textleak probe alpha", "second beta"], add_special_tokens=False)
        full = self._truncator.post_process(a, b if pair else None)
        ids, types = full.ids, full.type_ids
        content = [k for k, special in enumerate(full.special_tokens_mask) if not special]
        firsts, seconds = content[: len(a.ids)], content[len(a.ids) :]
        if not firsts or len(seconds) != (len(b.ids) if pair else 0):
            return None
        if firsts != list(range(firsts[0], firsts[0] + len(firsts))) or (seconds and seconds != list(range(seconds[0], seconds[0] + len(seconds)))):
            return None
        if [ids[k] for k in firsts] != a.ids or [ids[k] for k in seconds] != (b.ids if pair else []):
            return None
        end_first = firsts[-1] + 1
        start_second = seconds[0] if seconds else end_first
        end = seconds[-1] + 1 if seconds else end_first
        first_types = {types[k] for k in firsts}
        second_types = {types[k] for k in seconds} or {0}
        if len(first_types) != 1 or len(second_types) != 1:
            return None
        template = _Template(ids[: firsts[0]], types[: firsts[0]], ids[end_first:start_second], types[end_first:start_second],
                             ids[end:], types[end:], first_types.pop(), second_types.pop())
        # checked on a pair of other lengths
        c, d = backend.encode_batch(["another probe sentence with more words", "x"], add_special_tokens=False)
        want = self._truncator.post_process(c, d if pair else None)
        got_ids, got_types = self._assemble(template, c.ids, d.ids if pair else None)
        return template if (got_ids, got_types) == (want.ids, want.type_ids) else None

    @staticmethod
    def _assemble(t: _Template, a: list[int], b: list[int] | None) -> tuple[list[int], list[int]]:
        if b is None:
            return t.before + a + t.after, t.before_types + [t.first_type] * len(a) + t.after_types
        return (t.before + a + t.between + b + t.after,
                t.before_types + [t.first_type] * len(a) + t.between_types + [t.second_type] * len(b) + t.after_types)

    def texts(self, texts: Sequence[str], offsets: bool = False) -> dict[str, list]:
        """``{"input_ids", "token_type_ids"}`` (and ``"offset_mapping"``, special tokens at (0, 0)) per text."""
        texts = list(texts)
        if not self.fast:
            out = self.tokenizer(texts, truncation=True, max_length=self.max_length, return_offsets_mapping=offsets)
            ids = list(out["input_ids"])
            result = {"input_ids": ids, "token_type_ids": list(out["token_type_ids"]) if "token_type_ids" in out else [[0] * len(r) for r in ids]}
            if offsets:
                result["offset_mapping"] = [list(map(tuple, row)) for row in out["offset_mapping"]]
            return result
        t = self._single
        unique = dict.fromkeys(texts)
        encodings = dict(zip(unique, self._backend.encode_batch(list(unique), add_special_tokens=False)))
        room = self.max_length - t.added
        ids, types, spans = [], [], []
        for text in texts:
            e = encodings[text]
            if len(e.ids) <= room:
                i, ty = self._assemble(t, e.ids, None)
                if offsets:
                    spans.append([(0, 0)] * len(t.before) + e.offsets + [(0, 0)] * len(t.after))
            else:
                full = self._truncator.post_process(e)
                i, ty = full.ids, full.type_ids
                if offsets:
                    spans.append([o if s is not None else (0, 0) for o, s in zip(full.offsets, full.sequence_ids)])
            ids.append(i)
            types.append(ty)
        out = {"input_ids": ids, "token_type_ids": types}
        if offsets:
            out["offset_mapping"] = spans
        return out

    def pairs(self, pairs: Sequence[tuple[str, str]]) -> dict[str, list]:
        """``{"input_ids", "token_type_ids"}`` per (a, b) pair."""
        pairs = list(pairs)
        if not self.fast:
            out = self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation="longest_first", max_length=self.max_length)
            ids = list(out["input_ids"])  # a tokenizer without token types (RoBERTa's) gives none: zeros, as the model reads them
            return {"input_ids": ids, "token_type_ids": list(out["token_type_ids"]) if "token_type_ids" in out else [[0] * len(r) for r in ids]}
        t = self._pair
        unique = dict.fromkeys(x for pair in pairs for x in pair)
        encodings = dict(zip(unique, self._backend.encode_batch(list(unique), add_special_tokens=False)))
        token_ids = {text: e.ids for text, e in encodings.items()}
        room = self.max_length - t.added
        ids, types = [], []
        for a, b in pairs:
            x, y = token_ids[a], token_ids[b]
            if len(x) + len(y) <= room:
                i, ty = self._assemble(t, x, y)
            else:  # the tokenizer's own longest-first truncation
                full = self._truncator.post_process(encodings[a], encodings[b])
                i, ty = full.ids, full.type_ids
            ids.append(i)
            types.append(ty)
        return {"input_ids": ids, "token_type_ids": types}


def pad_rows(rows: Sequence[Sequence[int]], fill: int, width: int | None = None) -> np.ndarray:
    """``rows`` as one int64 array, right-padded with ``fill`` to ``width`` (default: the longest row)."""
    width = max(map(len, rows), default=0) if width is None else width
    out = np.full((len(rows), width), fill, dtype=np.int64)
    for k, row in enumerate(rows):
        out[k, : len(row)] = row
    return out


def unpadded(feed: Any) -> dict[str, Any]:
    """The encoder's inputs without ``attention_mask`` when the batch has no padding (every row as long as the
    longest, common once batches are formed by token count): attention then needs no mask, and the model
    builds none, the same computation without the mask's cost."""
    mask = feed.get("attention_mask")
    if mask is None or not bool(mask.all()):
        return dict(feed)
    return {key: value for key, value in feed.items() if key != "attention_mask"}
