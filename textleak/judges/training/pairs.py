"""Training pairs for the NLI judge, constructed by rules from real records.

Every record (a MedQA patient profile, a PUPA user query, a presidio synthetic sentence, a bundled demo
vignette) is atomized with the rule atomizer; for each claim the sentence it comes from (its *source*)
and the words of that sentence it states (its *focus*) are located, and the record is rewritten so
that the claim's fact is, by construction:

=====================  ======  ==============================================================
category               rating  document
=====================  ======  ==============================================================
verbatim               1       the record unchanged
paraphrase             1       synonyms, number formats, word numbers, list order (lexicon)
generalised_number     2       ages -> decades / "middle-aged", vitals and labs -> their band
                               ("febrile", "elevated"), durations -> "several days", rounding
generalised_term       2       disease -> class, drug -> drug class, city -> region, job -> sector
small_number_change    2       a number moved a little, staying in its clinical band
partial                2       part of the claim's detail dropped (list items, modifiers) or a
                               minor part of it masked
contradicting_number   3       a number moved across its clinical band or far from its value
negation               3       a negation flip (denies/reports, has/does not have, no/with ...)
antonym                3       an antonym swap (increased/decreased, left/right, hyper/hypo ...)
masked                 3       the claim's identifying content replaced by a mask token
removed                3       the source sentence (or the claim's list item) deleted
other_record           3       the source sentence replaced by the most similar sentence of a
                               BM25-nearest other record, or the whole record swapped for it
unrelated              3       a record of another source
=====================  ======  ==============================================================

Claims whose fact still appears elsewhere in a rewritten document (a lexical check: claim content
words and numbers in one other sentence) are dropped from the negative categories, so a label never
says "unsupported" where the document does support the claim. Records are split into train and
validation by a hash of their id (no record is in both). Everything is deterministic given the seed:
record i draws from ``numpy.random.default_rng(SeedSequence([seed, i]))``.

The lexicon (synonyms, generalisations, antonyms, negation rewrites, clinical bands) is
``lexicon.yaml`` beside this file.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from textleak.atomizers.rules import RuleAtomizer
from textleak.text import extract_numbers, split_sentences

logger = logging.getLogger(__name__)

LEXICON_PATH = Path(__file__).resolve().parent / "lexicon.yaml"
CATEGORIES = {
    "verbatim": 1, "paraphrase": 1,
    "generalised_number": 2, "generalised_term": 2, "small_number_change": 2, "partial": 2,
    "contradicting_number": 3, "negation": 3, "antonym": 3, "masked": 3, "removed": 3, "other_record": 3, "unrelated": 3,
}
# how often a category is drawn for a claim (relative weights among the categories that apply to it)
CATEGORY_WEIGHTS = {
    "verbatim": 1.0, "paraphrase": 1.5, "generalised_number": 2.5, "generalised_term": 4.0, "small_number_change": 1.5,
    "partial": 2.0, "contradicting_number": 2.0, "negation": 2.0, "antonym": 2.0, "masked": 1.5, "removed": 1.0,
    "other_record": 1.5, "unrelated": 0.5,
}
MASKS = ["[REDACTED]", "[MASK]", "***", "XXX", "[PRIVATE]", "<REDACTED>", "[removed]"]
TYPED_MASKS = {
    "person": ["[NAME]", "[PERSON]", "<PERSON>", "{{PERSON}}", "[PATIENT]"],
    "location": ["[LOCATION]", "[CITY]", "<LOCATION>", "{{LOCATION}}", "[PLACE]"],
    "organization": ["[ORGANIZATION]", "[COMPANY]", "<ORG>", "{{ORGANIZATION}}"],
    "number": ["[NUMBER]", "[VALUE]", "XX", "[REDACTED]", "##"],
    "age": ["[AGE]", "XX-year-old", "[REDACTED]-year-old"],
    "date": ["[DATE]", "<DATE>", "{{DATE_TIME}}"],
    "contact": ["[PHONE]", "[EMAIL]", "<CONTACT>", "[REDACTED]"],
}
WORD_MASKS = {
    "person": ["someone", "a person", "an individual", "a colleague"], "location": ["a place", "somewhere", "a location"],
    "organization": ["a company", "an organization"], "date": ["some time", "a date"], "contact": ["a contact"],
    "number": ["a number"], "pii": ["someone", "something", "a place", "an organization"],
}
_STOP = set("""a an the of to in on at by for with and or but is are was were be been being has have had do does did this that
these those it its he she his her him they them their i me my we our you your as from into over under about after before
than then so such who whom which what when where while there here not no also all any some each per one patient""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:[.,]\d+)*")
_SMALL_WORD_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
_NUM = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d,]\d)(?![A-Za-z])")
_DECADES = {2: "twenties", 3: "thirties", 4: "forties", 5: "fifties", 6: "sixties", 7: "seventies", 8: "eighties", 9: "nineties"}


# ---- data ----------------------------------------------------------------------------------------
@dataclass
class Record:
    id: str
    source: str  # medqa | demo | pupa | presidio
    domain: str  # medqa | wildchat
    text: str
    entities: tuple[tuple[str, str], ...] = ()  # (surface text, type) of PII in the record
    template: str | None = None  # presidio template id: records of one template fill the same slots


@dataclass
class Pair:
    claim: str
    document: str
    label: int
    category: str
    source: str
    domain: str
    record: str
    split: str
    evidence: str | None = None  # the rewritten source sentence (None when the fact was removed)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_split(record_id: str, val_share: int = 5) -> str:
    """Stable split by record id: one record in ``val_share`` goes to validation."""
    h = int(hashlib.sha256(record_id.encode()).hexdigest()[:8], 16)
    return "val" if h % val_share == 0 else "train"


def _pii_type(label: str) -> str:
    label = label.upper()
    if label in ("PERSON", "NAME", "FIRST_NAME", "LAST_NAME", "NRP", "TITLE"):
        return "person"
    if label in ("LOCATION", "CITY", "COUNTRY", "STREET_ADDRESS", "ADDRESS", "GPE", "ZIP_CODE", "US_STATE"):
        return "location"
    if label in ("ORGANIZATION", "ORG", "COMPANY"):
        return "organization"
    if label in ("DATE_TIME", "DATE", "TIME", "AGE"):
        return "date"
    if label in ("PHONE_NUMBER", "EMAIL_ADDRESS", "URL", "IP_ADDRESS", "DOMAIN_NAME"):
        return "contact"
    return "number"


def load_records(shared: str | Path, demo: str | Path | None = None, pupa_limit: int | None = None,
                 presidio_limit: int | None = 600, max_chars: int = 1500) -> list[Record]:
    """The real records the pairs are built from: MedQA profiles (sampled_50), the bundled demo
    vignettes, PUPA user queries (English ones; cut to ``max_chars`` at a sentence end), and presidio
    synthetic sentences (first ``presidio_limit``)."""
    from textleak.data.medqa import read_medqa_jsonl
    from textleak.data.presidio_synth import presidio_synth_records
    from textleak.data.vignettes import DEMO_PATH

    shared = Path(shared)
    records: list[Record] = []
    for r in read_medqa_jsonl(shared / "medqa" / "sampled_50.jsonl"):
        if r["text"].strip():
            records.append(Record(f"medqa-{r['id']}", "medqa", "medqa", r["text"]))
    for r in read_medqa_jsonl(demo or DEMO_PATH):
        records.append(Record(f"demo-{r['id']}", "demo", "medqa", r["text"]))
    with open(shared / "pupa" / "PUPA_TNB.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for k, row in enumerate(rows[:pupa_limit] if pupa_limit else rows):
        text = row["user_query"].strip()
        if not text or sum(ch.isascii() for ch in text) < 0.9 * len(text):
            continue  # non-English (mostly Chinese) queries: the rule atomizer is English-only
        text = _cut(text, max_chars)
        units = [u.strip() for u in row.get("pii_units", "").split("||") if u.strip()]
        ents = tuple((m.group(0), "pii") for u in units for m in [re.search(re.escape(u), text, re.IGNORECASE)] if m)
        records.append(Record(f"pupa-{row['conversation_hash']}", "pupa", "wildchat", text, ents))
    for r in presidio_synth_records(shared / "presidio_synth" / "synth_dataset_v2.json", presidio_limit):
        if len(r["text"].split()) < 5:
            continue
        ents = tuple((m["span_text"], _pii_type(m.get("entity_type_source", m["entity_type"]))) for m in r["entity_mentions"])
        records.append(Record(r["id"], "presidio", "wildchat", r["text"], ents, str(r.get("template_id"))))
    return records


def _cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    out = ""
    for s in split_sentences(text):
        if out and len(out) + len(s) + 1 > max_chars:
            break
        out = f"{out} {s}".strip()
    return out or text[:max_chars]


# ---- lexicon ---------------------------------------------------------------------------------------
@dataclass
class Band:
    name: str
    pattern: re.Pattern
    low: float
    high: float
    contradict: dict[str, float]
    words: dict[str, list[str]]


class Lexicon:
    """``lexicon.yaml`` compiled: synonym groups, generalisations, antonym pairs, negation rewrites,
    clinical bands."""

    def __init__(self, path: str | Path = LEXICON_PATH):
        import yaml

        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        self.synonyms: list[list[str]] = [list(g) for g in data["synonyms"]]
        self.generalise: dict[str, tuple[str, list[str]]] = {}
        for kind, table in data["generalise"].items():
            for term, broader in table.items():
                self.generalise[str(term).lower()] = (kind, list(broader))
        self.antonyms: dict[str, str] = {}
        for a, b in data["antonyms"]:
            self.antonyms.setdefault(a.lower(), b)
            self.antonyms.setdefault(b.lower(), a)
        self.negation = [(re.compile(p, re.IGNORECASE), r) for p, r in data["negation"]]
        self.bands: list[Band] = []
        for section in ("vitals", "labs"):
            for name, spec in data[section].items():
                words = spec.get("words") or {"low": ["low", "decreased"], "normal": ["normal", "within normal limits"], "high": ["elevated", "high", "increased"]}
                self.bands.append(Band(name, re.compile(spec["pattern"], re.IGNORECASE), float(spec["low"]), float(spec["high"]),
                                       {k: float(v) for k, v in spec["contradict"].items()}, words))
        self._syn_re = _phrase_regex([p for g in self.synonyms for p in g])
        self._gen_re = _phrase_regex(list(self.generalise))
        self._ant_re = _phrase_regex(list(self.antonyms))
        self._syn_group = {p.lower(): g for g in self.synonyms for p in g}


def _phrase_regex(phrases: Iterable[str]) -> re.Pattern:
    ordered = sorted({p for p in phrases}, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(p) for p in ordered) + r")(?![\w-])", re.IGNORECASE)


@lru_cache(maxsize=2)
def load_lexicon(path: str = str(LEXICON_PATH)) -> Lexicon:
    return Lexicon(path)


# ---- text helpers ------------------------------------------------------------------------------------
def content_words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP and not w.isdigit()]


def supports(claim: str, sentence: str, share: float = 0.75) -> bool:
    """Lexical support check used to keep labels honest: most of the claim's content words and all
    its numbers are in the sentence."""
    words = set(content_words(claim))
    if not words:
        return False
    found = set(content_words(sentence))
    numbers = extract_numbers(claim, count_word_one=False)
    return len(words & found) / len(words) >= share and numbers <= extract_numbers(sentence)


def _match_case(template: str, text: str) -> str:
    if template[:1].isupper() and text[:1].islower():
        return text[0].upper() + text[1:]
    if template[:1].islower() and text[:1].isupper() and not text[:2].isupper():
        return text[0].lower() + text[1:]
    return text


def locate(claim: str, sentences: Sequence[str]) -> tuple[int, str] | None:
    """Index of the claim's source sentence and the claim's focus in it (the longest run of the claim's
    trailing words found verbatim in a sentence; the rule atomizer builds list claims as head + item)."""
    core = claim.strip().rstrip(".!?").strip()
    words = core.split()
    best: tuple[int, int, str] | None = None
    for i, s in enumerate(sentences):
        low = s.lower()
        for k in range(len(words), 0, -1):
            tail = " ".join(words[-k:]).strip(" ,;:")
            if len(tail) >= 3 and tail.lower() in low:
                if best is None or k > best[0]:
                    start = low.index(tail.lower())
                    best = (k, i, s[start : start + len(tail)])
                break
    if best is None or best[0] < min(2, len(words)):
        return None
    return best[1], best[2]


def _pieces(text: str, sentences: Sequence[str]) -> list[tuple[str, str]]:
    """Each sentence with the separator that follows it in ``text`` (a space, or a line break)."""
    out, pos = [], 0
    for k, s in enumerate(sentences):
        i = text.find(s, pos)
        if i < 0:
            return [(x, " ") for x in sentences]
        end = i + len(s)
        nxt = text.find(sentences[k + 1], end) if k + 1 < len(sentences) else len(text)
        gap = text[end:nxt] if nxt >= end else " "
        out.append((s, "\n" if "\n" in gap else " "))
        pos = end
    return out


def replace_once(text: str, old: str, new: str) -> str:
    """Replace the first occurrence of ``old`` that is not inside a word ("male" is not in "female")."""
    if not old:
        return text
    pattern = (r"(?<!\w)" if old[0].isalnum() else "") + re.escape(old) + (r"(?!\w)" if old[-1].isalnum() else "")
    m = re.search(pattern, text)
    if m is None:
        return text
    return text[: m.start()] + new + text[m.end() :]


def _article_fix(before: str, repl: str) -> str:
    """Drop the replacement's own article after a determiner or an adjective ("a painful, swollen left
    calf" -> "a painful, swollen leg", not "... swollen a leg")."""
    prev = before.rstrip().split()[-1].lower() if before.strip() else ""
    keep_after = {"of", "with", "include", "includes", "included", "has", "had", "have", "takes", "took", "from", "in", "to",
                  "for", "as", "and", "or", "shows", "reveals", "showed", "on", "at", "by", "after", "because", "is", "was",
                  "are", "were", "develops", "reports", "denies", "taking", "", "like", "about"}
    m = re.match(r"^(?:a|an|the)\s+", repl, re.IGNORECASE)
    if m and (prev not in keep_after or prev.endswith(",")):
        return repl[m.end() :]
    return repl


def sub_in(text: str, focus: str, fn: Callable[[str], str | None]) -> str | None:
    """Apply ``fn`` to the focus inside ``text``; None when ``fn`` changes nothing."""
    new_focus = fn(focus)
    if new_focus is None or new_focus == focus:
        return None
    out = replace_once(text, focus, new_focus)
    return out if out != text else None


# ---- transforms on a focus ---------------------------------------------------------------------------
class Transforms:
    """Rule rewrites of a claim's focus; each returns the new focus or None when it does not apply."""

    def __init__(self, lexicon: Lexicon, rng: np.random.Generator, medical: bool = True):
        self.lx = lexicon
        self.rng = rng
        self.medical = medical

    def pick(self, xs: Sequence[Any]) -> Any:
        return xs[int(self.rng.integers(len(xs)))]

    # -- rating 1
    def paraphrase(self, text: str) -> str | None:
        out = text
        changed = 0
        for m in list(self.lx._syn_re.finditer(text))[::-1]:
            if self.rng.random() < 0.7:
                group = self.lx._syn_group[m.group(0).lower()]
                alts = [g for g in group if g.lower() != m.group(0).lower()]
                if alts:
                    out = out[: m.start()] + _match_case(m.group(0), self.pick(alts)) + out[m.end() :]
                    changed += 1
        out2 = self._number_formats(out)
        if out2 != out:
            changed += 1
            out = out2
        if changed == 0 or self.rng.random() < 0.3:
            out3 = self._reorder(out)
            if out3 != out:
                changed += 1
                out = out3
        return out if changed and out != text else None

    def _number_formats(self, text: str) -> str:
        r = self.rng.random()
        m = re.search(r"\b([Aa]n?) (\d{1,3})-year-old (woman|man|boy|girl|patient|female|male|child|infant)\b", text)
        if m and r < 0.5:
            return text[: m.start()] + _match_case(m.group(1), f"a {m.group(3)} aged {m.group(2)}") + text[m.end() :]
        m = re.search(r"\b(\d{1,3})-year-old\b", text)
        if m and r < 0.6:
            return text[: m.start()] + f"{m.group(1)} years old" + text[m.end() :]
        m = re.search(r"(\d{2}(?:\.\d)?)\s*°C \((\d{2,3}(?:\.\d)?)\s*°F\)", text)
        if m and r < 0.8:
            alt = self.pick([f"{m.group(1)}°C", f"{m.group(1)} degrees Celsius", f"{m.group(2)}°F", f"{m.group(1)} °C"])
            return text[: m.start()] + alt + text[m.end() :]
        m = re.search(r"\b(\d{1,2})\b(?![.,/%\d-])(?!\s*(?:mg|g|kg|mm|cm|mL|mEq|U|°))", text)
        if m and int(m.group(1)) < len(_SMALL_WORD_NUMBERS) and int(m.group(1)) > 1:
            return text[: m.start()] + _SMALL_WORD_NUMBERS[int(m.group(1))] + text[m.end() :]
        m = re.search(r"/min\b", text)
        if m:
            return text[: m.start()] + self.pick([" per minute", " beats per minute", "/minute"]) + text[m.end() :]
        m = re.search(r"^([A-Z][A-Za-z +-]{2,30}?) (\d[\d.,]*\s*\S*)$", text.strip())
        if m and self.medical:  # a lab line "Hemoglobin 16 mg/dL"
            return self.pick([f"{m.group(1)}: {m.group(2)}", f"{m.group(1)} of {m.group(2)}", f"{m.group(1)} is {m.group(2)}",
                              f"{m.group(1)} level {m.group(2)}"])
        return text

    def _reorder(self, text: str) -> str:
        m = re.search(r"(\b[\w -]{3,40}), ([\w -]{3,40}), and ([\w -]{3,40})", text)
        if m:
            items = [m.group(1), m.group(2), m.group(3)]
            order = list(self.rng.permutation(3))
            if order != [0, 1, 2]:
                new = f"{items[order[0]]}, {items[order[1]]}, and {items[order[2]]}"
                return text[: m.start()] + new + text[m.end() :]
        m = re.match(r"^(.{10,}?) because of (.{5,}?)([.!?]?)$", text)
        if m:
            return f"Because of {m.group(2)}, {m.group(1)[0].lower() + m.group(1)[1:]}{m.group(3)}"
        m = re.search(r"\b([\w-]{3,20}) and ([\w-]{3,20})\b", text)
        if m and m.group(1).lower() not in _STOP and m.group(2).lower() not in _STOP:
            return text[: m.start()] + f"{m.group(2)} and {m.group(1)}" + text[m.end() :]
        return text

    # -- rating 2
    def generalise_term(self, text: str) -> str | None:
        hits = list(self.lx._gen_re.finditer(text))
        if not hits:
            return None
        m = self.pick(hits)
        kind, broader = self.lx.generalise[m.group(0).lower()]
        repl = self.pick(broader)
        before = text[: m.start()]
        if kind == "occupations":
            a = re.search(r"\b(?:as|is) an?\s*$", before, re.IGNORECASE)
            if a:
                verb = "works" if before[a.start():].lower().startswith("as") else "works"
                prefix = before[: a.start()]
                if prefix.rstrip().lower().endswith("works"):
                    return prefix + repl + text[m.end() :]
                return prefix + f"{'as someone who ' + verb} {repl}" + text[m.end() :]
            return before + "someone who works " + repl + text[m.end() :]
        a = re.search(r"\b(?:a|an|the)\s*$", before, re.IGNORECASE)
        if a and re.match(r"^(?:a|an|the)\s", repl, re.IGNORECASE):
            before = before[: a.start()]
        repl = _article_fix(before, repl)
        return before + (_match_case(m.group(0), repl) if not before.strip() else repl) + text[m.end() :]

    def generalise_number(self, text: str) -> str | None:
        options: list[Callable[[], str | None]] = []
        m = re.search(r"\b([Aa]n?) (\d{1,3})-year-old ((?:[a-z]+ )?)(woman|man|boy|girl|patient|female|male|child)\b", text)
        if m:
            options.append(lambda m=m: text[: m.start()] + _match_case(m.group(1), self._age_phrase(int(m.group(2)), m.group(4), m.group(3))) + text[m.end() :])
        m2 = re.search(r"\b(\d{1,3})[- ]year[s]?[- ]old\b", text)
        if m2 and not m:
            options.append(lambda m=m2: text[: m.start()] + self._age_words(int(m.group(1))) + text[m.end() :])
        for band in self.lx.bands:
            b = band.pattern.search(text)
            if b:
                options.append(lambda b=b, band=band: self._band_word(text, b, band))
        d = re.search(r"\b(\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|several)[- ](hours?|days?|weeks?|months?|years?)\b(?!-old)", text, re.IGNORECASE)
        if d and d.group(1).lower() not in ("a", "several"):
            unit = d.group(2).lower().rstrip("s")
            options.append(lambda d=d, unit=unit: text[: d.start()] + self.pick([f"several {unit}s", f"a few {unit}s", f"some {unit}s", "some time"]) + text[d.end() :])
        n = [x for x in _NUM.finditer(text) if len(x.group(0).replace(",", "").split(".")[0]) >= 2 and not text[x.end() : x.end() + 5] == "-year"]
        if n:
            x = self.pick(n)
            options.append(lambda x=x: text[: x.start()] + self._round(x.group(0)) + text[x.end() :])
        y = re.search(r"\b(?:in|since|of) (19|20)(\d\d)\b", text)
        if y:
            options.append(lambda y=y: text[: y.start()] + self.pick(["some years ago", "a few years ago", f"in the {y.group(1)}{y.group(2)[0]}0s"]) + text[y.end() :])
        if not options:
            return None
        out = self.pick(options)()
        return out if out and out != text else None

    def _age_words(self, age: int) -> str:
        if age < 13:
            return self.pick(["a child", "young"])
        if age < 20:
            return self.pick(["a teenager", "in adolescence"])
        decade = _DECADES.get(age // 10, "later life")
        third = ["early", "mid", "late"][min(2, (age % 10) // 4)]
        opts = [f"in their {decade}", f"in their {third} {decade}"]
        opts.append("middle-aged" if 40 <= age < 65 else "elderly" if age >= 65 else "a young adult")
        return self.pick(opts)

    def _age_phrase(self, age: int, noun: str, adjective: str = "") -> str:
        noun = adjective + noun
        pron = {"woman": "her", "girl": "her", "female": "her", "man": "his", "boy": "his", "male": "his"}.get(noun.split()[-1], "their")
        if age < 13:
            return f"a young {noun}"
        if age < 20:
            return self.pick([f"a teenage {noun}", f"an adolescent {noun}"])
        decade = _DECADES.get(age // 10, "eighties")
        third = ["early", "mid", "late"][min(2, (age % 10) // 4)]
        opts = [f"a {noun} in {pron} {decade}", f"a {noun} in {pron} {third} {decade}"]
        opts.append(f"a middle-aged {noun}" if 40 <= age < 65 else f"an elderly {noun}" if age >= 65 else f"a young {noun}")
        return self.pick(opts)

    def _band_word(self, text: str, m: re.Match, band: Band) -> str | None:
        value = float(m.group(1).replace(",", ""))
        where = "low" if value < band.low else "high" if value > band.high else "normal"
        words = band.words.get(where)
        if not words:
            return None
        # replace the value and its unit (up to the next comma/period/paren) by the band's word
        start = m.start(1)
        end_m = re.compile(r"[^,;]*?(?=,|;|\.\s|\.$|$| and )").match(text, m.end(1))
        end = end_m.end() if end_m else m.end(1)
        adjective = {"low": ["low", "decreased", "below normal"], "normal": ["normal", "within normal limits"],
                     "high": ["elevated", "high", "increased", "above normal"]}[where]
        if self.rng.random() < 0.5 or band.name in ("leukocytes", "platelets", "sodium", "potassium", "glucose", "creatinine", "hemoglobin", "hematocrit", "tsh"):
            prefix = text[:start]
            prefix = re.sub(r"\s*(?:is|of|was|:)?\s*$", "", prefix)
            return f"{prefix} {self.pick(['is ', 'was ', ''])}{self.pick(adjective)}{text[end:]}"
        # whole-clause form: "Her temperature is 38.3°C" -> "She is febrile"
        clause = re.search(r"(?:[Hh]is|[Hh]er|[Tt]he|[Tt]heir)?\s*[^,.;]*$", text[: m.start()])
        head = text[: clause.start()] if clause else text[: m.start()]
        return f"{head}{'' if not head or head.endswith(' ') else ' '}{_match_case(head or 'T', 'the patient has ' + self.pick(words)) if not head.strip() else 'the patient has ' + self.pick(words)}{text[end:]}"

    def _round(self, number: str) -> str:
        value = float(number.replace(",", ""))
        if value < 20:
            return self.pick(["several", "a few"]) if value >= 3 else "a couple of"
        digits = len(str(int(value)))
        rounded = int(round(value, -(digits - 1)))
        if rounded == int(value):
            rounded = int(round(value, -(digits - 2))) if digits > 2 else rounded
        words = f"{rounded:,}" if "," in number else str(rounded)
        if words == number:
            return self.pick(["several", "many", "some"])
        return self.pick(["about ", "around ", "approximately ", "roughly "]) + words

    def small_number_change(self, text: str) -> str | None:
        for band in self.rng.permutation(len(self.lx.bands)):
            band = self.lx.bands[int(band)]
            b = band.pattern.search(text)
            if b:
                value = float(b.group(1).replace(",", ""))
                where = self._where(value, band)
                for _ in range(8):
                    new = value * (1 + self.pick([-1, 1]) * self.rng.uniform(0.03, 0.09))
                    new = self._like(b.group(1), new)
                    if new != b.group(1) and self._where(float(new.replace(",", "")), band) == where:
                        return text[: b.start(1)] + new + text[b.end(1) :]
        m = re.search(r"\b(\d{1,3})([- ]year[s]?[- ]old)", text)
        if m:
            age = int(m.group(1))
            new = max(1, age + int(self.pick([-4, -3, -2, -1, 1, 2, 3, 4])))
            return text[: m.start(1)] + str(new) + text[m.end(1) :]
        nums = list(_NUM.finditer(text))
        if not nums:
            return None
        x = self.pick(nums)
        value = float(x.group(0).replace(",", ""))
        if value == 0:
            return None
        for _ in range(8):
            if value < 10 and "." not in x.group(0):
                new = str(int(value) + int(self.pick([-1, 1]))) if value > 1 else str(int(value) + 1)
            else:
                new = self._like(x.group(0), value * (1 + self.pick([-1, 1]) * self.rng.uniform(0.05, 0.2)))
            if new != x.group(0) and float(new.replace(",", "")) > 0:
                return text[: x.start()] + new + text[x.end() :]
        return None

    @staticmethod
    def _where(value: float, band: Band) -> str:
        return "low" if value < band.low else "high" if value > band.high else "normal"

    @staticmethod
    def _like(template: str, value: float) -> str:
        decimals = len(template.split(".")[1]) if "." in template else 0
        if decimals:
            return f"{value:.{decimals}f}"
        v = int(round(value))
        return f"{v:,}" if "," in template else str(v)

    # -- rating 3
    def contradicting_number(self, text: str) -> str | None:
        for k in self.rng.permutation(len(self.lx.bands)):
            band = self.lx.bands[int(k)]
            b = band.pattern.search(text)
            if b:
                value = float(b.group(1).replace(",", ""))
                target = band.contradict.get(self._where(value, band))
                if target is None:
                    continue
                new = self._like(b.group(1), target * (1 + self.rng.uniform(-0.03, 0.03)))
                out = text[: b.start(1)] + new + text[b.end(1) :]
                # keep a paired value consistent: "38.3°C (100.9°F)" -> drop the Fahrenheit part
                out = re.sub(r"(°C)\s*\(\d{2,3}(?:\.\d)?\s*°F\)", r"\1", out)
                if band.name == "systolic":
                    out = re.sub(r"(\d{2,3})\s*/\s*(\d{2,3})", lambda mm: f"{mm.group(1)}/{int(self.rng.integers(62, 84))}", out, count=1)
                return out
        m = re.search(r"\b(\d{1,3})([- ]year[s]?[- ]old)", text)
        if m:
            age = int(m.group(1))
            new = age + int(self.rng.integers(25, 45)) if age < 45 else max(2, age - int(self.rng.integers(25, 45)))
            return text[: m.start(1)] + str(new) + text[m.end(1) :]
        d = re.search(r"\b(\d+)\s+(hours?|days?|weeks?|months?|years?)\b", text)
        if d:
            units = ["hours", "days", "weeks", "months", "years"]
            u = d.group(2).rstrip("s") + "s"
            i = units.index(u) if u in units else 2
            j = (i + 2) % len(units) if i < 3 else i - 3
            return text[: d.start()] + f"{d.group(1)} {units[j] if d.group(1) != '1' else units[j][:-1]}" + text[d.end() :]
        nums = list(_NUM.finditer(text))
        if not nums:
            return None
        x = self.pick(nums)
        value = float(x.group(0).replace(",", ""))
        factor = self.rng.uniform(3.0, 8.0)
        new = value * factor if (value < 10 or self.rng.random() < 0.5) else value / factor
        if value == 0:
            new = float(self.rng.integers(5, 30))
        return text[: x.start()] + self._like(x.group(0), new) + text[x.end() :]

    def negation(self, text: str) -> str | None:
        for pattern, repl in self.lx.negation:
            m = pattern.search(text)
            if m:
                new = pattern.sub(lambda mm: _match_case(mm.group(0), mm.expand(repl)), text, count=1)
                if new != text:
                    return new
        m = re.search(r"\b(He|She|It|The patient|The child|The man|The woman|The boy|The girl|[A-Z][a-z]+)\s+([a-z]{3,}?)(ies|es|s)\b", text)
        if m and m.group(2) + m.group(3) not in ("is", "has", "was", "does", "this", "his", "as", "us"):
            base = m.group(2) + ("y" if m.group(3) == "ies" else "e" if m.group(3) == "es" and not re.search(r"(sh|ch|x|ss|z|o)$", m.group(2)) else "")
            return text[: m.start(2)] + f"does not {base}" + text[m.end(3) :]
        m = re.search(r"\b(I|We|They|You|He|She)\s+([a-z]{3,}ed)\b", text)
        if m:
            return text[: m.start(2)] + f"never {m.group(2)}" + text[m.end(2) :]
        m = re.search(r"\b(I|We|They|You)\s+([a-z]{3,})\b", text)
        if m and m.group(2) not in ("am", "was", "were", "had", "have", "will", "would", "can", "could", "do", "did", "should", "must"):
            return text[: m.start(2)] + f"do not {m.group(2)}" + text[m.end(2) :]
        return None

    def antonym(self, text: str) -> str | None:
        hits = list(self.lx._ant_re.finditer(text))
        if not hits:
            return None
        m = self.pick(hits)
        return text[: m.start()] + _match_case(m.group(0), self.lx.antonyms[m.group(0).lower()]) + text[m.end() :]

    def partial(self, text: str) -> str | None:
        """Drop part of the detail: list items, a modifier phrase, or leading qualifiers."""
        opts: list[str] = []
        m = re.search(r"(\b[\w -]{3,50}), ([\w -]{3,50}),? and ([\w -]{3,50})", text)
        if m:
            keep = self.pick([m.group(1), m.group(2), m.group(3)])
            opts.append(text[: m.start()] + keep + text[m.end() :])
        m = re.search(r"\b([\w-]{3,30}(?: [\w-]{2,30}){0,2}) and ([\w-]{3,30}(?: [\w-]{2,30}){0,2})\b", text)
        if m and m.group(1).split()[-1].lower() not in _STOP:
            opts.append(text[: m.start()] + self.pick([m.group(1), m.group(2)]) + text[m.end() :])
        m = re.search(r"\s+(?:radiating|that|which|on the|in the|over the|after|since|during|with|while|associated with|in his|in her)\b[^,.;]*", text)
        if m and len(content_words(m.group(0))) >= 1 and m.start() > 8:
            opts.append(text[: m.start()] + text[m.end() :])
        m = re.search(r"\s+for (?:the past |the last )?(?:\d+|a|one|two|three|several)[- ](?:hours?|days?|weeks?|months?|years?)\b", text)
        if m:
            opts.append(text[: m.start()] + text[m.end() :])
        m = re.search(r"\b(crushing|substernal|burning|severe|mild|acute|chronic|new|purulent|productive|bilateral|intermittent|progressive|sudden|colicky|painful|swollen|basal|recurrent|worsening|persistent|pleuritic|dry|diffuse|generalized|localized)\s+", text, re.IGNORECASE)
        if m:
            opts.append(text[: m.start()] + text[m.end() :])
        opts = [o for o in opts if o != text and len(content_words(o)) >= 1]
        return self.pick(opts) if opts else None


# ---- construction -------------------------------------------------------------------------------------
class PairBuilder:
    """Builds labelled (claim, document) pairs from records; see the module docstring."""

    def __init__(self, records: Sequence[Record], seed: int = 0, per_claim: int = 4, max_claims_per_record: int = 14,
                 noise: float = 0.3, lexicon: Lexicon | None = None):
        self.records = list(records)
        self.seed = int(seed)
        self.per_claim = per_claim
        self.max_claims_per_record = max_claims_per_record
        self.noise = noise
        self.lx = lexicon or load_lexicon()
        self.atomizer = RuleAtomizer()
        self._neighbours = self._bm25_neighbours()

    def _bm25_neighbours(self, k: int = 4) -> list[list[int]]:
        """The k BM25-nearest other records of the same kind (source) for every record."""
        from textleak.linkers.bm25 import BM25Linker

        out: list[list[int]] = [[] for _ in self.records]
        by_source: dict[str, list[int]] = {}
        for i, r in enumerate(self.records):
            by_source.setdefault(r.source, []).append(i)
        for source, idx in by_source.items():
            linker = BM25Linker().fit([self.records[i].text for i in idx])
            hits = linker._search([self.records[i].text[:2000] for i in idx], k + 1)
            for row, i in enumerate(idx):
                out[i] = [idx[j] for j, _ in hits[row] if idx[j] != i][:k]
        return out

    def build(self, progress: bool = False) -> list[Pair]:
        from tqdm.auto import tqdm

        pairs: list[Pair] = []
        for i in tqdm(range(len(self.records)), desc="pairs", disable=not progress):
            pairs.extend(self.record_pairs(i))
        return pairs

    def _claims(self, rec: Record, sentences: list[str], rng: np.random.Generator) -> list[tuple[str, int, str, str]]:
        """(claim, source index, focus, kind): the rule atomizer's claims, plus finer demographic claims
        (kind "age" / "sex", which only some categories apply to)."""
        out = []
        for c in self.atomizer.atomize_one(rec.text):
            if len(c.split()) > 60:
                continue
            loc = locate(c, sentences)
            if loc is not None:
                out.append((c, loc[0], loc[1], "claim"))
        if rec.domain == "medqa" and sentences:
            m = re.search(r"\b(\d{1,3})-year-old (woman|man|boy|girl|female|male|child|infant|patient)\b", sentences[0])
            if m:
                age, noun = m.group(1), m.group(2)
                out.append((self._pick(rng, [f"The patient is {age} years old.", f"The patient is a {age}-year-old.", f"The patient's age is {age}."]), 0, f"{age}-year-old", "age"))
                if noun in ("woman", "man", "boy", "girl", "female", "male"):
                    sex = {"woman": "female", "girl": "female", "female": "female"}.get(noun, "male")
                    out.append((self._pick(rng, [f"The patient is {sex}.", f"The patient is a {noun}."]), 0, noun, "sex"))
        if len(out) > self.max_claims_per_record:
            keep = sorted(rng.choice(len(out), self.max_claims_per_record, replace=False))
            out = [out[k] for k in keep]
        return out

    @staticmethod
    def _pick(rng: np.random.Generator, xs: Sequence[Any]) -> Any:
        return xs[int(rng.integers(len(xs)))]

    def record_pairs(self, i: int) -> list[Pair]:
        rec = self.records[i]
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, i]))
        tf = Transforms(self.lx, rng, medical=rec.domain == "medqa")
        sentences = split_sentences(rec.text)
        split = record_split(rec.id)
        pairs: list[Pair] = []
        for claim, src, focus, kind in self._claims(rec, sentences, rng):
            applicable = self._applicable(rec, claim, focus)
            if kind == "age":
                applicable = [c for c in applicable if c in ("verbatim", "paraphrase", "generalised_number", "small_number_change", "contradicting_number", "masked", "other_record")]
            elif kind == "sex":
                applicable = [c for c in ("verbatim", "antonym", "other_record") if c in applicable or c == "antonym"]
            if not applicable:
                continue
            weights = np.asarray([CATEGORY_WEIGHTS[c] for c in applicable], dtype=float)
            n = min(self.per_claim + (1 if rec.domain == "medqa" else -1), len(applicable))
            chosen = [applicable[k] for k in rng.choice(len(applicable), n, replace=False, p=weights / weights.sum())]
            for category in chosen:
                made = self._make(category, rec, i, sentences, src, claim, focus, tf, rng)
                if made is None:
                    continue
                document, label, cat, evidence = made
                if not document.strip():
                    continue  # an empty document is rated 3 without the model: nothing to learn
                final_claim = claim
                if label in (1, 3) and rng.random() < 0.15:  # the claim itself in other words (another atomizer's wording)
                    final_claim = tf.paraphrase(claim) or claim
                pairs.append(Pair(final_claim, document, label, cat, rec.source, rec.domain, rec.id, split, evidence))
        return pairs

    def _applicable(self, rec: Record, claim: str, focus: str) -> list[str]:
        cats = ["verbatim", "paraphrase", "negation", "removed", "other_record", "unrelated", "partial"]
        numeric = focus
        for e, _ in rec.entities:  # numbers inside identifiers (addresses, cards, phones) are not quantities
            numeric = re.sub(re.escape(e), " ", numeric, flags=re.IGNORECASE)
        has_number = bool(re.search(r"\d", numeric)) and (rec.source != "presidio" or not rec.entities)
        if has_number:
            cats += ["generalised_number", "contradicting_number"]
            if rec.source != "presidio":
                cats.append("small_number_change")
        if self.lx._gen_re.search(focus) or any(e.lower() in focus.lower() and (t in ("date", "location")) for e, t in rec.entities):
            cats.append("generalised_term")
        if self.lx._ant_re.search(focus):
            cats.append("antonym")
        if any(e.lower() in focus.lower() for e, _ in rec.entities) or (rec.domain == "medqa" and has_number):
            cats.append("masked")
        return cats

    def _document(self, rec: Record, sentences: list[str], src: int, new_source: str | None, rng: np.random.Generator, tf: Transforms) -> str:
        """The record with its source sentence replaced (None: deleted), the record's own separators (line
        breaks of lab tables) kept; sometimes only its neighbourhood, sometimes with other sentences
        rewritten too (as a sanitizer would)."""
        pieces = _pieces(rec.text, sentences)  # (sentence, separator after it)
        out = []
        for k, (s, sep) in enumerate(pieces):
            if k == src:
                if new_source:
                    out.append((new_source, sep))
                elif out:
                    out[-1] = (out[-1][0], out[-1][1] if "\n" in out[-1][1] else sep)
                continue
            if self.noise and rng.random() < self.noise:
                s = (tf.paraphrase(s) if rng.random() < 0.5 else tf.generalise_term(s) or tf.generalise_number(s)) or s
            out.append((s, sep))
        if len(out) > 4 and rng.random() < 0.4:  # a neighbourhood of the source
            lo = max(0, src - int(rng.integers(1, 3)))
            out = out[lo : lo + int(rng.integers(3, 6))]
        return "".join(s + sep for s, sep in out).strip()

    def _other_sentences_support(self, claim: str, sentences: list[str], src: int) -> bool:
        return any(supports(claim, s) for k, s in enumerate(sentences) if k != src)

    def _make(self, category: str, rec: Record, i: int, sentences: list[str], src: int, claim: str, focus: str,
              tf: Transforms, rng: np.random.Generator) -> tuple[str, int, str, str | None] | None:
        source = sentences[src]
        label = CATEGORIES[category]
        if label > 1 and category not in ("unrelated", "other_record") and self._other_sentences_support(claim, sentences, src):
            return None  # the fact is stated twice in the record: no honest negative from this record
        if category == "verbatim":
            return self._document(rec, sentences, src, source, rng, tf), 1, category, source
        if category in ("paraphrase", "generalised_term", "generalised_number", "small_number_change", "contradicting_number",
                        "negation", "antonym", "partial"):
            fn = {"paraphrase": tf.paraphrase, "generalised_term": lambda t: self._generalise_term(rec, t, tf),
                  "generalised_number": tf.generalise_number, "small_number_change": tf.small_number_change,
                  "contradicting_number": tf.contradicting_number, "negation": tf.negation, "antonym": tf.antonym,
                  "partial": tf.partial}[category]
            # negations act on the whole sentence when the focus is a list item ("denies X, Y" head)
            new = sub_in(source, focus, fn)
            if new is None and category == "negation" and focus.strip(" .") != source.strip(" .?") and not source.rstrip().endswith("?"):
                # a list item without a verb of its own: negate the item itself ("... and no diffuse hyperreflexia")
                item = re.sub(r"^(?:an?|the)\s+", "", focus, flags=re.IGNORECASE)
                if not re.search(r"\b(?:is|are|was|were|has|have|had|does|did|not|no)\b", item, re.IGNORECASE):
                    new = replace_once(source, focus, tf.pick(["no ", "no evidence of ", "absent "]) + item)
            if new is None and category in ("negation", "paraphrase"):
                new = fn(source)
            if new is None or new == source:
                return None
            if category == "partial":
                words = set(content_words(claim))
                kept = len(words & set(content_words(new))) / max(1, len(words))
                if supports(claim, new, share=0.99) or 0.3 <= kept < 0.5:
                    return None
                if kept < 0.3:  # most of the claim is gone: nothing similar is left
                    label, category = 3, "removed"
            if category in ("negation", "antonym", "contradicting_number") and supports(claim, new, 1.0) and category != "negation":
                return None
            return self._document(rec, sentences, src, new, rng, tf), label, category, new
        if category == "masked":
            new, share = self._mask(rec, source, focus, claim, rng)
            if new is None:
                return None
            return self._document(rec, sentences, src, new, rng, tf), (3 if share >= 0.5 else 2), ("masked" if share >= 0.5 else "partial"), new
        if category == "removed":
            items = re.split(r",\s*(?:and\s+)?|\s+and\s+", source)
            if focus != source.rstrip(".") and len(items) > 2 and focus in source and rng.random() < 0.5:
                new = re.sub(r"\s*,\s*,", ",", replace_once(source, focus, "").replace(" , ", ", ")).replace(", and .", ".")
                if not supports(claim, new):
                    return self._document(rec, sentences, src, new, rng, tf), 3, category, None
            return self._document(rec, sentences, src, None, rng, tf), 3, category, None
        if category == "other_record":
            neighbours = self._neighbours[i]
            if not neighbours:
                return None
            j = int(self._pick(rng, neighbours))
            other = split_sentences(self.records[j].text)
            if not other or any(supports(claim, s) for s in other):
                return None
            if rng.random() < 0.35:  # the whole neighbour record
                return " ".join(other), 3, category, None
            words = set(content_words(source))
            slot = max(other, key=lambda s: (len(words & set(content_words(s))) / (1 + len(set(content_words(s)))), -len(s)))
            doc_sentences = list(sentences)
            if any(supports(claim, s) for k, s in enumerate(doc_sentences) if k != src):
                return None
            return self._document(rec, sentences, src, slot, rng, tf), 3, category, slot
        if category == "unrelated":
            others = [k for k, r in enumerate(self.records) if r.source != rec.source]
            if not others:
                return None
            j = int(self._pick(rng, others))
            doc = self.records[j].text
            if any(supports(claim, s) for s in split_sentences(doc)):
                return None
            return doc, 3, category, None
        raise ValueError(category)

    def _generalise_term(self, rec: Record, text: str, tf: Transforms) -> str | None:
        for e, t in rec.entities:  # dates -> their year or decade; addresses -> their country (rating 2)
            if e.lower() not in text.lower():
                continue
            year = re.search(r"\b(19|20)(\d)(\d)\b", e)
            if t == "date" and year:
                repl = tf.pick([f"in {year.group(0)}", f"in the {year.group(1)}{year.group(2)}0s", f"some time in {year.group(0)}"])
                k = text.lower().index(e.lower())
                return text[:k] + repl + text[k + len(e) :]
            country = next((w for w in self.lx.generalise if self.lx.generalise[w][0] == "places" and re.search(rf"\b{re.escape(w)}\b", e, re.IGNORECASE)), None)
            if t == "location" and country and len(e) > len(country) + 3:
                k = text.lower().index(e.lower())
                return text[:k] + tf.pick([f"an address in {country.title()}", f"somewhere in {country.title()}"]) + text[k + len(e) :]
        ents = [(e, t) for e, t in rec.entities if e.lower() in text.lower() and e.lower() in self.lx.generalise]
        if ents and tf.rng.random() < 0.6:
            e, t = ents[int(tf.rng.integers(len(ents)))]
            broader = {"person": ["someone", "a person", "a colleague", "an individual"], "location": ["a city", "a place", "abroad", "a region"],
                       "organization": ["a company", "an organization", "an institution"], "date": ["recently", "some time ago", "that year"],
                       "contact": ["their contact details", "a phone number"], "number": ["a number", "an identifier"],
                       "pii": ["someone", "a place", "an organization", "a person", "a company"]}[t if t in ("person", "location", "organization", "date", "contact", "number") else "pii"]
            gen = self.lx.generalise.get(e.lower())
            repl = tf.pick(gen[1]) if gen else tf.pick(broader)
            k = text.lower().index(e.lower())
            return text[:k] + _article_fix(text[:k], repl) + text[k + len(e) :]
        return tf.generalise_term(text)

    def _mask(self, rec: Record, source: str, focus: str, claim: str, rng: np.random.Generator) -> tuple[str | None, float]:
        """Mask PII (records with entities) or the numbers (MedQA) of the focus; returns the new
        source sentence and the share of the claim's content the masks removed."""
        new_focus = focus
        removed: list[str] = []
        ents = [(e, t) for e, t in rec.entities if e.lower() in focus.lower()]
        if ents:
            for e, t in ents:
                if rng.random() < 0.85 or len(ents) == 1:
                    pool = TYPED_MASKS.get(t, []) + MASKS + WORD_MASKS.get(t, WORD_MASKS["pii"])
                    k = new_focus.lower().find(e.lower())
                    if k >= 0:
                        new_focus = new_focus[:k] + self._pick(rng, pool) + new_focus[k + len(e) :]
                        removed.append(e)
        elif rec.domain == "medqa":
            def mask_number(m: re.Match) -> str:
                removed.append(m.group(0))
                return self._pick(rng, TYPED_MASKS["number"] + MASKS)

            new_focus = re.sub(r"(?<![\w.])\d+(?:[.,/]\d+)*(?:\s*(?:°[CF]|%|/min|mm Hg|mg/dL|g/dL|/mm3|mEq/L|kg|years?)(?![\w]))?(?![\w])", mask_number, new_focus)
            new_focus = re.sub(r"\s*\((?:\[?[A-Z#X]+\]?|\*+)\s*\)", "", new_focus)
        if new_focus == focus or not removed:
            return None, 0.0
        claim_words = content_words(claim)
        masked_words = set(w for e in removed for w in content_words(e))
        numbers = extract_numbers(claim, count_word_one=False)
        # numbers are the content of a measurement claim: count them as content
        total = len(claim_words) + 2 * len(numbers)
        gone = sum(1 for w in claim_words if w in masked_words) + 2 * len(numbers - extract_numbers(new_focus))
        share = gone / total if total else 0.0
        if rec.domain == "medqa" and numbers and not (numbers & extract_numbers(new_focus)) and len(claim_words) <= 4:
            share = max(share, 0.5)  # a measurement with its value masked states nothing about the patient
        return replace_once(source, focus, new_focus), share


def build_pairs(shared: str | Path, seed: int = 0, per_claim: int = 4, progress: bool = False, **record_options: Any) -> list[Pair]:
    """All generated pairs (train and validation, see :attr:`Pair.split`), deterministic given ``seed``."""
    records = load_records(shared, **record_options)
    return PairBuilder(records, seed=seed, per_claim=per_claim).build(progress=progress)


def pairs_hash(pairs: Sequence[Pair]) -> str:
    h = hashlib.sha256()
    for p in pairs:
        h.update(json.dumps(p.to_dict(), sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()
