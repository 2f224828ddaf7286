"""The rule atomizer (the offline default): sentences, finding lines, enumerations and coordinated
clauses. Deterministic, fast, no model."""

from __future__ import annotations

import re
from typing import Any, Sequence

from textleak.atomizers.base import Atomizer
from textleak.registry import atomizers
from textleak.text import split_sentences

_LIST_VERBS = (
    r"shows?|showed|reveals?|revealed|demonstrates?|demonstrated|includes?|included|including|"
    r"(?:is|are|was|were) (?:significant|remarkable|notable) for|significant for|notable for|remarkable for|"
    r"consists? of|complains? of|reports?|reported|denies|denied|has|had|takes|took|is taking|history of"
)
_LIST_HEAD = re.compile(rf"^(?P<head>.*\b(?:{_LIST_VERBS}))\s+(?P<items>.+)$", re.IGNORECASE)
_COORD_SUBJECTS = r"(?:he|she|they|it|his|her|their|the patient|the child|the infant|there|i|we|my)"
_COORD_SPLIT = re.compile(rf"\s*;\s*|,?\s+(?:and|but|while|whereas)\s+(?={_COORD_SUBJECTS}\b)", re.IGNORECASE)
_LAB_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9 ,()/%+\-'α-ωΑ-Ω]*?\s[<>≤≥~]?\s*[\d.,]+\s*\S*.*$")


def _split_top_level(text: str, separators: str = ",;") -> list[str]:
    """Split at separators followed by a space, outside parentheses and brackets ("8,900/mm3" stays whole)."""
    parts, depth, buf = [], 0, []
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        if ch in separators and depth == 0 and (i + 1 == len(text) or text[i + 1].isspace()):
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    return [p.strip() for p in parts if p.strip()]


_CONJ = re.compile(r"^(?:and|or)\s+", re.IGNORECASE)
_COPULA = re.compile(r"\b(?:is|are|was|were|of)\b\s+\S*\d", re.IGNORECASE)
_WEAK_LIST_VERBS = {"has", "had", "takes", "took", "taking"}


def _list_items(items: str, allow_pair: bool = True) -> list[str] | None:
    """Items of an enumeration "a, b, and c" / "a, b and c" / "a and b" (None when it is not one)."""
    body = items.strip().rstrip(" .")
    parts = _split_top_level(body, ",")
    if len(parts) >= 2:
        has_conj = bool(_CONJ.match(parts[-1]))
        parts[-1] = _CONJ.sub("", parts[-1])
        if not has_conj:
            tail = re.split(r"\s+(?:and|or)\s+", parts[-1], maxsplit=1)
            if len(tail) == 2 and all(1 <= len(t.split()) <= 6 for t in tail):
                parts[-1:] = tail
            elif len(parts) == 2 and max(len(p.split()) for p in parts) > 4:
                return None  # "a, b" with long parts is an appositive or two clauses, not a list
        if any(len(p.split()) > 12 for p in parts):
            return None
        return parts
    pair = re.split(r"\s+and\s+", body, maxsplit=1)
    if allow_pair and len(pair) == 2 and all(1 <= len(p.split()) <= 4 for p in pair):
        return pair
    return None


def _sentence_claims(sentence: str) -> list[str]:
    """Claims of one sentence: a colon list, a list after a list verb, coordinated clauses, or itself."""
    s = sentence.strip()
    if not s:
        return []
    end = "." if not s.endswith(("?", "!")) else s[-1]
    core = s.rstrip(" .!?")
    # coordinated clauses first ("...; he ...", "..., and she ...")
    clauses = [c.strip(" ,") for c in _COORD_SPLIT.split(core) if c and c.strip(" ,")]
    if len(clauses) > 1:
        out: list[str] = []
        for c in clauses:
            out.extend(_sentence_claims(c[0].upper() + c[1:] + end))
        return out
    # "head: a, b, and c"
    if ":" in core:
        head, _, items = core.partition(":")
        parts = _list_items(items) if items.strip() else None
        if parts and len(parts) >= 2 and len(head.split()) <= 12:
            return [f"{head.strip()} {p}{end}" for p in parts]
        if items.strip() and len(head.split()) <= 12:
            return [f"{head.strip()} {items.strip()}{end}"]
    # "his temperature is X, pulse is Y, and oxygen saturation is Z": a list of copular clauses
    parts = _split_top_level(core, ",")
    if len(parts) >= 3:
        is_clause = [bool(_COPULA.search(p)) for p in parts]
        if sum(is_clause) >= 2 and is_clause[-1]:
            first = is_clause.index(True)
            clauses = [", ".join(parts[: first + 1])] + [_CONJ.sub("", p) for p in parts[first + 1 :]]
            if all(is_clause[first:]):
                return [c[0].upper() + c[1:] + end for c in clauses]
    m = _LIST_HEAD.match(core)
    if m and len(m.group("head").split()) <= 12:
        verb = m.group("head").split()[-1].lower()
        parts = None if verb in _WEAK_LIST_VERBS else _list_items(m.group("items"))
        if parts and len(parts) >= 2:
            head = m.group("head").strip()
            return [f"{head} {p}{end}" for p in parts]
    return [core + end]


@atomizers.register("rules", aliases=("rule",))
class RuleAtomizer(Atomizer):
    """Deterministic atomizer: sentences, finding lines, enumerations and coordinated clauses.

    ``split_lists`` and ``split_clauses`` turn the two finer splits off (then a claim is a sentence).
    Lines ending in ":" that introduce a table ("Laboratory studies show:") are headers, not claims.
    """

    name = "rules"
    VERSION = "1"

    def __init__(self, split_lists: bool = True, split_clauses: bool = True, min_words: int = 2):
        self.split_lists = split_lists
        self.split_clauses = split_clauses
        self.min_words = min_words

    def atomize_one(self, text: str) -> list[str]:
        claims: list[str] = []
        for sentence in split_sentences(text):
            if sentence.endswith(":"):
                continue  # a table header; its rows follow as their own lines
            if not (self.split_lists or self.split_clauses):
                claims.append(sentence)
                continue
            parts = _sentence_claims(sentence) if self.split_lists else [sentence]
            if not self.split_clauses:
                parts = parts if len(parts) > 1 or not _COORD_SPLIT.search(sentence) else [sentence]
            claims.extend(parts)
        return [c for c in (c.strip() for c in claims) if len(c.split()) >= self.min_words]

    def atomize(self, texts: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[str]]:
        return [self.atomize_one(t) for t in texts]

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.VERSION, "split_lists": self.split_lists,
                "split_clauses": self.split_clauses, "min_words": self.min_words}
