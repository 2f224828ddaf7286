"""Atomization: break a record into atomic, independent claims (seed 000 §2.2, appendix C.1).

Two atomizers share one interface, ``atomizer.atomize(texts, seeds) -> list[list[str]]``:

- :class:`RuleAtomizer` (the offline default): sentences, lines of findings (lab tables), lists after
  a colon or after verbs such as "shows"/"includes" ("Exam shows A, B, and C" gives three claims),
  and clauses coordinated by ";" or ", and he ...". Deterministic, fast, no model.
- :class:`LLMAtomizer`: the appendix C.1 instruction with in-context demos, as explicit chat
  messages (not the release's ``[INST]`` markers), and a robust parser of numbered and bulleted lines.

:func:`atomize_records` puts either behind the on-disk cache, keyed by the atomizer's settings and the
record's text, so the original dataset is atomized once and reused for every sanitizer evaluated
against it, and an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import json
import logging
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from textleak.cache import DiskCache, content_hash

logger = logging.getLogger(__name__)

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"

# ---------------------------------------------------------------------------------------------
# sentence segmentation (NLTK's punkt needs a data download; this splitter needs nothing)
# ---------------------------------------------------------------------------------------------

_ABBREVIATIONS = {
    "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "eg", "ie", "approx",
    "no", "fig", "inc", "ltd", "co", "dept", "mt", "min", "max", "hr", "hrs", "wk", "wks", "mo", "yr",
    "yrs", "u.s", "a.m", "p.m", "cf", "al", "ca", "ft", "temp",
}
_CANDIDATE_BOUNDARY = re.compile(r"([.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences: line breaks always end a sentence; ``.``, ``!`` or ``?`` followed by
    space and an upper-case letter or digit ends one unless the word before is a known abbreviation,
    a single initial ("J. Smith", but not a unit after a number, "38.5 C.") or the period is part of a
    decimal. The judges split documents with the same function."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        start = 0
        for m in _CANDIDATE_BOUNDARY.finditer(line):
            if m.group(1) == ".":
                word = re.search(r"(?:^|[\s(])([A-Za-z][A-Za-z.]*)\.$", line[: m.start(1) + 1])
                if word:
                    w = word.group(1).lower()
                    # a single letter is an initial ("J. Smith"), unless it is a unit after a number ("38.5 C.")
                    initial = len(w) == 1 and w.isalpha() and not re.search(r"\d\s*$", line[: word.start(1)])
                    if w in _ABBREVIATIONS or initial:
                        continue
            end = m.end(2)
            sentence = line[start:end].strip()
            if sentence:
                out.append(sentence)
            start = m.end()
        tail = line[start:].strip()
        if tail:
            out.append(tail)
    return out


# ---------------------------------------------------------------------------------------------
# the interface
# ---------------------------------------------------------------------------------------------


class Atomizer(ABC):
    """Configuration in ``__init__``; ``atomize`` does the work; ``describe`` goes into reports and
    into the claims cache key (change a setting, miss the cache)."""

    name: str = "atomizer"
    VERSION: str = "1"

    @abstractmethod
    def atomize(self, texts: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[str]]:
        """One list of claims per text (an empty text has no claims)."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """Name, version, model and settings."""


# ---------------------------------------------------------------------------------------------
# rule-based atomizer
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# LLM atomizer
# ---------------------------------------------------------------------------------------------

_NUMBERED = re.compile(r"^\s*(?:claim\s*)?\(?\d{1,3}\s*[.):\]]\s*(.+?)\s*$", re.IGNORECASE)
_BULLETED = re.compile(r"^\s*(?:[-*•–·]|\u2022)\s+(.+?)\s*$")
_PREAMBLE = re.compile(r"^\s*(?:here\s+(?:are|is)|sure|certainly|okay|ok\b|the\s+(?:atomic\s+)?claims|below\s+are)", re.IGNORECASE)


def parse_claims(reply: str | None) -> list[str]:
    """Claims from an atomizer reply.

    Numbered lines ("1. ...", "2) ...", "(3) ...", "Claim 4: ...") and bulleted lines ("- ...", "* ...",
    "• ...") are taken in order; without any, every line after a preamble ("Here are the claims:") is a
    claim. Markdown emphasis and code fences are removed; header lines ending in ":" and empty lines
    are dropped. Claims are not deduplicated (as in the paper).
    """
    if not reply:
        return []
    lines = [l for l in reply.replace("\r\n", "\n").split("\n") if not l.strip().startswith("```")]
    listed: list[str] = []
    for line in lines:
        m = _NUMBERED.match(line) or _BULLETED.match(line)
        if m:
            listed.append(m.group(1))
    if not listed:
        body = [l.strip() for l in lines if l.strip()]
        if body and (_PREAMBLE.match(body[0]) or body[0].endswith(":")):
            body = body[1:]
        listed = body
    out = []
    for c in listed:
        c = re.sub(r"\*\*|__", "", c).strip().strip("`").strip()
        if c and not c.endswith(":"):
            out.append(c)
    return out


@dataclass
class AtomizationDemo:
    document: str
    claims: list[str]


def load_demos(name: str = "medqa") -> list[AtomizationDemo]:
    """In-context demos from ``textleak/prompts/atomize_demos.json`` (written in-house)."""
    data = json.loads((PROMPTS_DIR / "atomize_demos.json").read_text(encoding="utf-8"))
    if name not in data:
        raise KeyError(f"no atomization demos named {name!r}; available: {', '.join(sorted(data))}")
    return [AtomizationDemo(d["document"], list(d["claims"])) for d in data[name]]


class LLMAtomizer(Atomizer):
    """Seed 000 appendix C.1 atomization with any :class:`~textleak.llm.LanguageModel`.

    The prompt is a chat: for each demo a user turn (instruction + demo document) and an assistant
    turn listing the demo's claims, then a user turn with the instruction and the target record
    (the release joins the same turns with ``[INST]`` markers; explicit messages are portable).

    Records longer than ``max_chars`` (a proxy for the model's context) are atomized in consecutive
    chunks of whole sentences and the claims concatenated: the documented policy for long records.
    A reply with no parsable claim is retried once with sampling (``retry_temperature``) and then
    falls back to :class:`RuleAtomizer` for that record, logged as a warning (a record without
    claims would silently leave the evaluation).
    """

    name = "llm"
    VERSION = "1"

    def __init__(
        self,
        llm: Any = "embedded",
        demos: str = "medqa",
        n_demos: int = 1,
        max_new_tokens: int = 512,
        temperature: float = 0.0,
        max_chars: int = 6000,
        retry_temperature: float = 0.7,
    ):
        self.llm = llm
        self.demos = demos
        self.n_demos = n_demos
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.max_chars = max_chars
        self.retry_temperature = retry_temperature
        self._lm = None
        self.fallbacks = 0

    @property
    def lm(self):
        if self._lm is None:
            from textleak.llm import load_llm

            self._lm = load_llm(self.llm)
        return self._lm

    def instruction(self) -> str:
        return (PROMPTS_DIR / "atomize.txt").read_text(encoding="utf-8").strip()

    def build_messages(self, text: str) -> list[dict[str, str]]:
        instruction = self.instruction()
        msgs: list[dict[str, str]] = []
        for demo in load_demos(self.demos)[: self.n_demos]:
            msgs.append({"role": "user", "content": f"{instruction}\n\n{demo.document}"})
            listed = "\n".join(f"{i}. {c}" for i, c in enumerate(demo.claims, 1))
            msgs.append({"role": "assistant", "content": f"Here are the atomic, independent claims broken down into individual lines:\n{listed}"})
        msgs.append({"role": "user", "content": f"{instruction}\n\n{text}"})
        return msgs

    def _chunks(self, text: str) -> list[str]:
        if len(text) <= self.max_chars:
            return [text]
        chunks, buf = [], ""
        for s in split_sentences(text):
            if buf and len(buf) + 1 + len(s) > self.max_chars:
                chunks.append(buf)
                buf = ""
            buf = f"{buf} {s}".strip()
        if buf:
            chunks.append(buf)
        return chunks

    def atomize(self, texts: Sequence[str], seeds: Sequence[int] | None = None) -> list[list[str]]:
        seeds = list(seeds) if seeds is not None else list(range(len(texts)))
        jobs: list[tuple[int, str, int]] = []
        for i, (t, s) in enumerate(zip(texts, seeds)):
            if t and t.strip():
                jobs.extend((i, c, s) for c in self._chunks(t))
        out: list[list[str]] = [[] for _ in texts]
        if not jobs:
            return out
        replies = self.lm.generate([self.build_messages(c) for _, c, _ in jobs], max_new_tokens=self.max_new_tokens,
                                   temperature=self.temperature, seed=[s for _, _, s in jobs], on_error="none")
        failed = []
        for j, ((i, chunk, s), reply) in enumerate(zip(jobs, replies)):
            claims = parse_claims(reply[0])
            if claims:
                out[i].extend(claims)
            else:
                failed.append(j)
        if failed:
            retry = self.lm.generate([self.build_messages(jobs[j][1]) for j in failed], max_new_tokens=self.max_new_tokens,
                                     temperature=self.retry_temperature, seed=[jobs[j][2] + 1 for j in failed], on_error="none")
            rules = RuleAtomizer()
            for j, reply in zip(failed, retry):
                i, chunk, _ = jobs[j]
                claims = parse_claims(reply[0])
                if not claims:
                    self.fallbacks += 1
                    logger.warning("atomizer: no claims parsed for record %d after a retry; using the rule atomizer for it", i)
                    claims = rules.atomize_one(chunk)
                out[i].extend(claims)
        return out

    def describe(self) -> dict[str, Any]:
        lm = self.llm if isinstance(self.llm, str) else None
        model = lm if lm is not None else getattr(self.llm, "describe", lambda: {"model": repr(self.llm)})()
        return {"name": self.name, "version": self.VERSION, "llm": model, "demos": self.demos, "n_demos": self.n_demos,
                "max_new_tokens": self.max_new_tokens, "temperature": self.temperature, "max_chars": self.max_chars,
                "prompt_hash": content_hash(self.instruction())[:16]}


def make_atomizer(spec: "str | Atomizer | None" = "rules", llm: Any = None, **options: Any) -> Atomizer:
    """``"rules"`` (default) or ``"llm"`` (uses ``llm``, default the embedded model), or an Atomizer."""
    if isinstance(spec, Atomizer):
        return spec
    if spec in (None, "rules", "rule"):
        return RuleAtomizer(**options)
    if spec == "llm":
        return LLMAtomizer(llm=llm if llm is not None else "embedded", **options)
    raise ValueError(f"unknown atomizer {spec!r}: use 'rules' or 'llm'")


def atomize_records(
    texts: Sequence[str],
    atomizer: Atomizer,
    seeds: Sequence[int] | None = None,
    cache: DiskCache | None = None,
    batch_size: int = 64,
    progress: bool = False,
    desc: str = "atomizing",
) -> list[list[str]]:
    """Claims of every text, cached by (atomizer settings, text): computed once, reused across
    sanitizers and runs; saved batch by batch, so an interrupted run resumes."""
    cache = cache if cache is not None else DiskCache("claims")
    settings = atomizer.describe()
    keys = [content_hash("claims", settings, t) for t in texts]
    found = cache.get_many(set(keys))
    todo = [i for i, k in enumerate(keys) if k not in found]
    first: dict[str, int] = {}
    todo = [i for i in todo if first.setdefault(keys[i], i) == i]
    seeds = list(seeds) if seeds is not None else list(range(len(texts)))
    if todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc=desc, unit="rec", disable=not progress, leave=False)
        for start in range(0, len(todo), batch_size):
            chunk = todo[start : start + batch_size]
            result = atomizer.atomize([texts[i] for i in chunk], [seeds[i] for i in chunk])
            fresh = {keys[i]: claims for i, claims in zip(chunk, result)}
            cache.set_many(fresh)
            found.update(fresh)
            bar.update(len(chunk))
        bar.close()
    return [list(found[k]) for k in keys]
