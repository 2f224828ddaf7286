"""Word tokenizers that keep character spans, so a sanitized text is the original with token spans
replaced and every space and line break of the original preserved."""

from __future__ import annotations

import re
from functools import lru_cache

# words with inner apostrophes/hyphens ("don't", "e-mail"), clitics ("'s", "n't" stays with its word
# stem in SST-2's PTB tokens: "does n't" -> "does", "n't"), and single punctuation marks
_WORD_RE = re.compile(r"\w+(?:['\u2019-]\w+)*|['\u2019]\w+|[^\w\s]")
_WHITESPACE_RE = re.compile(r"\S+")

Span = tuple[int, int]


class WordTokenizer:
    """``regex`` (default), ``whitespace`` (SST-2/PTB text that is already tokenised), or
    ``hf:<model id or path>`` (WordPiece pieces with offsets, SanText's BERT mode)."""

    def __init__(self, kind: str = "regex"):
        if kind not in ("regex", "whitespace") and not kind.startswith("hf:"):
            raise ValueError(f"unknown tokenizer {kind!r}: use 'regex', 'whitespace' or 'hf:<model>'")
        self.kind = kind
        self._hf = None

    def spans(self, text: str) -> list[Span]:
        if self.kind == "regex":
            return [m.span() for m in _WORD_RE.finditer(text)]
        if self.kind == "whitespace":
            return [m.span() for m in _WHITESPACE_RE.finditer(text)]
        enc = self._hf_tokenizer()(text, add_special_tokens=False, return_offsets_mapping=True)
        return [tuple(o) for o in enc["offset_mapping"] if o[1] > o[0]]

    def tokens(self, text: str) -> list[str]:
        if self.kind.startswith("hf:"):
            tok = self._hf_tokenizer()
            return tok.convert_ids_to_tokens(tok(text, add_special_tokens=False)["input_ids"])
        return [text[a:b] for a, b in self.spans(text)]

    def tokens_and_spans(self, text: str) -> tuple[list[str], list[Span]]:
        if self.kind.startswith("hf:"):
            tok = self._hf_tokenizer()
            enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
            pairs = [(t, tuple(o)) for t, o in zip(tok.convert_ids_to_tokens(enc["input_ids"]), enc["offset_mapping"]) if o[1] > o[0]]
            return [p[0] for p in pairs], [p[1] for p in pairs]
        spans = self.spans(text)
        return [text[a:b] for a, b in spans], spans

    def is_single_token(self, word: str) -> bool:
        """Whether ``word`` re-tokenises to itself, so a sanitized text can be split back position by position."""
        if self.kind.startswith("hf:"):
            return True
        return self.tokens(word) == [word]

    def _hf_tokenizer(self):
        if self._hf is None:
            self._hf = _load_hf_tokenizer(self.kind[3:])
        return self._hf


@lru_cache(maxsize=4)
def _load_hf_tokenizer(name: str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name)


def render(text: str, spans: list[Span], replacements: list[str], tokenizer: "WordTokenizer | None" = None) -> str:
    """``text`` with each span replaced, every space and line break of the original kept.

    Where two tokens touched in the original (no whitespace between them, as in ``''``, ``mr.`` or
    ``mellitus,``) and a replacement would glue them into one token (``thousandpointed``,
    ``mellitus000``), one space is put between them, so the sanitized text re-tokenises to exactly one
    token per original token (given ``tokenizer``; without it, every such junction next to a
    replaced token gets the space). WordPiece continuation pieces (``##x``) are glued on, as before.
    """
    if tokenizer is not None and tokenizer.kind.startswith("hf:"):
        out: list[str] = []
        last = 0
        for (a, b), rep in zip(spans, replacements):
            out.append(text[last:a])
            out.append(rep[2:] if rep.startswith("##") and len(rep) > 2 else rep)
            last = b
        out.append(text[last:])
        return "".join(out)
    n = len(spans)
    changed = [text[a:b] != rep for (a, b), rep in zip(spans, replacements)]
    # junction k sits between token k and k + 1; it needs a space when they touched and one of them changed
    touching = [k for k in range(n - 1) if spans[k][1] == spans[k + 1][0] and (changed[k] or changed[k + 1])]
    space: set[int] = set()
    if touching:
        if tokenizer is None:
            space = set(touching)
        else:
            space = {k for k in touching if tokenizer.tokens(replacements[k] + replacements[k + 1]) != [replacements[k], replacements[k + 1]]}
            glued = [k for k in touching if k not in space]
            if glued:  # pairs that re-tokenise apart may still merge in a run of three ("x" "-" "y")
                probe = _join(text, spans, replacements, space)
                if tokenizer.tokens(probe) != list(replacements):
                    space.update(glued)
    return _join(text, spans, replacements, space)


def _join(text: str, spans: list[Span], replacements: list[str], space: set[int]) -> str:
    out: list[str] = []
    last = 0
    for k, ((a, b), rep) in enumerate(zip(spans, replacements)):
        out.append(text[last:a])
        out.append(rep)
        if k in space:
            out.append(" ")
        last = b
    out.append(text[last:])
    return "".join(out)
