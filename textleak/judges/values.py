"""Values that are written are leaked: a claim's specific values, found in the released text.

A cross-encoder reads meaning; it can miss that "ariel", the host a pasted error message names, is
the claim's "PostgreSQL host named 'ariel'", or that "Sam" in "symptoms that Sam may experience" is the
claim's "The person's name is Sam". A reader does not. This module finds a claim's **values**

- identifiers: e-mail and web addresses, paths, host and file names, user names, codes (five
  characters or more with two digits and two letters: "user42", "A12B3"; not units such as "mm3" or
  "H2O"), words with inner dots, colons, underscores or ``@``; numbers of 7 or more digits (phone
  numbers, account numbers), compared on their digits;
- quoted strings;
- the value after a naming cue ("named X", "called X", "username is X", "host is X", "e-mail is X"),
  and what a claim says the text mentions ("The user mentions X", "The message is addressed to X");
- proper names: capitalised words that do not open the claim (acronyms of 2-4 capitals aside:
  "ECG", "HIV" name tests and diseases, not people);
- time zones as offsets from UTC ("UTC+05:30" is the "+0530" of a pasted log's date line: :mod:`textleak.text.clock`);
- calendar dates in any format (:mod:`textleak.text.dates`: "2025-03-03" is "March 3, 2025");
- quantities with their units (:mod:`textleak.text.quantities`, so 80 kg is found as 176 lb), but
  not durations and ages, which recur in every record;

and decides, with :func:`value_verdict`, what their presence in the released text means:

- a **strong** value (identifier, quoted, named by a cue, a name of two words or more, a long number)
  found anywhere in the text: the claim cannot be rated 3;
- a single proper name found anywhere: not rated 3 either;
- a **weak** value (a quantity, a figure of three digits or more, a date without its year) counts
  only in a sentence that also holds another content word of the claim ("pH 7.12" does, "invoice
  7.12" does not);
- the claim is rated 1 when every value is found and either it is a naming claim (its value came
  from a naming cue or is quoted: the name itself is the fact), or its last words are an identifier
  (address, host, path, code, long number) written with no negation cue near it, or one sentence
  holding the values also holds most (3/5) of the claim's other content words with the same polarity.

Names are read as a reader reads them: in any script, without their accents ("Krakow" is
"Kraków"), and, for a name of two words or more, through one typo in one word ("Zenit bank" is
Zenith Bank). A name of one word must match exactly (Renata and Renato are two people), and so must
every digit. A one-word name that is also a frequent word ("Will", "Rose") counts only where it is
written capitalised, unless the writer does not capitalise ("my daughter hope"); a name written without
its spaces counts only inside an address, a domain or a handle ("fenwickbio.com", not "Edward" for "Ed
Ward"); a long number with more digits counts only when the extra ones are a country code written apart
("+353 86 ...", not "98812345" for 8812345). A quantity in the same unit must be equal: one within a
conversion's rounding in the same unit ("EUR 1,245" for EUR 1,240) is a small change, written (not 3)
but never stated (not 1). A value with a negation right before or after it ("no longer rickard", "rickard
is not my username") is written, not stated. A sentence states the claim only where it also writes the
claim's other numbers ("7 hours" is not stated by "4 hours").

The rules only ever lower ratings (toward leakage), but one: :func:`rival_value`, a near miss where the claim's
value is written nowhere ("24-318787" for "24-318877"), which the cross-encoder reads as the value itself; such a
claim is rated 2, not 1. A value the claim shares with another person's
record in the same text is not told apart: the rubric rates what the text says, and a chance match
of an identifier is rare.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from typing import Iterator, Sequence

import regex

from textleak.text import extract_numbers, rouge_tokens, split_sentences
from textleak.text.clock import CLOCK, UTC_OFFSET, clock, utc_offset, utc_offsets
from textleak.text.coarse import coarser_written, specific_values
from textleak.text.dates import CalendarDate, find_dates, same_date
from textleak.text.layout import read_layout
from textleak.text.negation import NEGATION
from textleak.text.places import coarser_place_written
from textleak.text.quantities import Quantity, bare_amounts, find_quantities, same_quantity
from textleak.text.rewrite import rewrite_as
from textleak.text.typos import common_words, edits_apart, english_words, one_typo_apart

_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_URL = r"(?:https?://|www\.)[^\s\"'<>()]+"
_PATH = r"(?:~|[A-Za-z]:)?(?:[/\\][\w.@-]+){2,}[/\\]?"
_IDENT = r"[A-Za-z][\w-]*(?:[._:@][\w-]+)+|\w[\w-]{3,}\w|[a-z]{2,}[A-Z][A-Za-z]*|\w+_\w+"  # "mailer-01.acme.com" whole
_IDENTIFIER = re.compile(rf"{_EMAIL}|{_URL}|{_PATH}|(?<![\w.])(?:{_IDENT})(?![\w])")
_QUOTED = re.compile(r"(?<!\w)(['\"`\u2018\u201c])([^'\"`\u2018\u2019\u201c\u201d\n]{1,60}?)(['\"`\u2019\u201d])(?!\w)")
_SLOTS = (r"user\s?name|login|handle|host\s?name|host|server|machine|computer|laptop|device|e-?mail(?:\s+address)?|alias|nickname|"
          r"password|pseudonym|surname|first\s+name|last\s+name|middle\s+name|full\s+name|name|account(?:\s+name)?|id|repo(?:sitory)?|"
          r"database|db|schema|table|project|domain|website|site|url|ssid|wifi(?:\s+network)?|namespace|cluster|bucket|branch|"
          r"container|service|image|pod|node|queue|topic|channel|workspace|team|org|organi[sz]ation|company|employer|"
          r"ip(?:\s+address)?|address|path|folder|directory|file(?:\s?name)?|key|token|secret|tag|version|ticket|case|"
          r"order|invoice|policy|reference|licen[cs]e|plate|postcode|zip(?:\s+code)?|phone(?:\s+number)?|number")
# a naming cue, then the value: "named X", "username is X", "host: X", "known as X"; the cue words in any
# case, the value's further words only when capitalised ("named Rose Callahan", not "named Sam and lives")
_CUE = re.compile(
    rf"\b(?i:named|called|nicknamed|titled|(?:{_SLOTS})\s+(?:is|was|are|:|=)(?:\s+(?:named|called))?|(?:name|called|known)\s+as|"
    r"(?:logs?|logged|signs?|signed|sshe?s?|connects?|connected|runs?|ran)\s+(?:in(?:to)?\s+)?(?:\w+\s+){0,3}?as(?:\s+(?:the\s+)?user)?)"
    r"\s+(['\"`\u2018\u201c]?)([\w.@+/:~-]+(?:\s+(?:&\s+)?[A-Z][\w'-]+){0,3})")  # "called Crumb & Kettle" whole
# "The user mentions X", "The message is addressed to X": the rest of the claim is the value
_MENTION = re.compile(r"\b(?:mentions?|mentioned|refers?\s+to|talks?\s+about|(?:is|are|was)\s+(?:addressed\s+to|signed\s+by))\s+"
                      r"(?:the\s+|a\s+|an\s+)?(\S.*?)\s*[.!?]?\s*$")
# capitalised words in any script ("Tomasz Wróbel", "Zoë", "Ólafur"), not only ASCII
_CAPITALISED = regex.compile(r"(?<![\w'])(\p{Lu}[\p{L}'\-]*\p{Ll}[\p{L}'\-]*(?:\s+(?:\p{Lu}[\p{L}'\-]+|(?:de|van|von|da|del|la|le|bin|al|of|and|&|for|the|on)(?=\s+\p{Lu})))*)")
# a figure of three significant digits or more ("port 8081", "£1,150", "7.12"): weak, counted beside a claim word
_FIGURE = re.compile(r"(?<![\w.,/:-])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{3,}(?:\.\d+)?|\d+\.\d{1,}(?<=\d\.\d\d|\d\d\.\d)\d*)(?![\w,/:-]|\.\d)")
# a clock time ("03:12", "7:40 pm"), compared as 24-hour hh:mm
_ACRONYM = re.compile(r"^[A-Z]{2,4}s?$")
_LONG_NUMBER = re.compile(r"(?<![\w.])\+?\(?\d[\d\s().-]{5,}\d(?![\w])")
_TOKEN = re.compile(r"[^\W_]+")  # letters and digits of any script
# words that open claims or are capitalised for grammar, never values
_NOT_NAMES = frozenset(
    "the a an this that these those user users patient patients person people he she his her him i my me we our they their it its "
    "there here mr mrs ms dr doctor prof professor monday tuesday wednesday thursday friday saturday sunday january february march "
    "april may june july august september october november december english spanish french german american british european "
    "god christmas easter internet ok okay yes no please thanks thank hello hi dear sir madam hg".split())
# content words of a claim that only say which value it is ("The user's name is ...")
_NAMING_WORDS = frozenset(rouge_tokens("name named call called nicknamed username user login handle host hostname server machine "
                                       "computer email mail address alias nickname password surname first last middle full account "
                                       "id known title titled is was phone telephone mobile cell number fax code zip postcode postal "
                                       "ssn iban card licence license passport mention mentions mentioned refer refers talk talks "
                                       "about addressed signed message e date year web site"))
# Negation scope, for the verbatim shortcut's polarity over a positive claim's words (textleak.judges.nli.stating_sentence).
# Cues that scope over the words after them ("not pruritic", "denies chest pain", "stopped taking", "fails to use") and
# cues that scope over the words before them ("anti-dsDNA antibodies negative", "Chest pain: none", "ruled out"); the
# adjectives scope both ways ("absent pedal pulses", "pulses absent"). A scope stops at punctuation (a colon does not
# stop a cue that looks back: "Chest pain: none") and at a clause word. The lists err wide: a cue they hold only keeps
# the shortcut from firing, which the whole-sentence check did anyway.
_NEGATES_AFTER = re.compile(r"(?:no|not|never|none|nothing|nobody|neither|nor|without|denies|denied|deny|denying|cannot|\w+n['’]t|"
                            r"negative|absent|unremarkable|stopped|stops|quit|quits|fails?|failed|refuses?|refused|lacks?|lacking|"
                            r"declines?|declined|excluded|ruled)", re.IGNORECASE)
_NEGATES_BEFORE = re.compile(r"(?:negative|absent|unremarkable|denied|none|excluded|resolved)", re.IGNORECASE)
_CLAUSE = re.compile(r"(?:but|however|although|though|except|yet|whereas|while|which|who)", re.IGNORECASE)
_SCOPE_WORDS = re.compile(r"\w(?:[\w'’]*\w)?|[,;:.!?()]")  # words without their quotes or hyphens ("'not'", "ANA-negative")
_SCOPE_AFTER, _SCOPE_BEFORE = 6, 3


@lru_cache(maxsize=65536)
def _scope_words(sentence: str) -> tuple[tuple[str, ...], tuple[frozenset[str], ...]]:
    """The sentence's words and punctuation marks for negation scope, with each word's stems (once per sentence)."""
    from textleak.text import rouge_tokens

    words = tuple(_SCOPE_WORDS.findall(re.sub(r"\bfree (?:of|from)\b", "without", sentence, flags=re.IGNORECASE)))
    return words, tuple(frozenset(rouge_tokens(w)) if w[0].isalnum() else frozenset() for w in words)


def negates_words(sentence: str, stems: frozenset[str]) -> bool:
    """Whether a negation cue in ``sentence`` scopes over one of the (stemmed) ``stems``: a cue that looks ahead ("no",
    "not", "n't", "without", "denies", "stopped", "fails", "negative", ...) with such a word within its next 6 words,
    or a cue that looks back ("negative", "absent", "none", "ruled out", any cue after a colon) within 3 words after one, with no
    punctuation mark or clause word ("but", "which", ...) between (a colon does not end a look back). "She takes
    warfarin daily and feels well, with no bleeding" does not negate warfarin; "She does not take warfarin",
    "Chest pain: none" and "absent pedal pulses" negate theirs."""
    words, word_stems = _scope_words(sentence)
    hits = [bool(stems & w) for w in word_stems]
    for i, w in enumerate(words):
        if _NEGATES_AFTER.fullmatch(w):
            for k in range(i + 1, min(len(words), i + 1 + _SCOPE_AFTER)):
                if not words[k][0].isalnum() or _CLAUSE.fullmatch(words[k]):
                    break
                if hits[k]:
                    return True
        # a cue that looks back, "ruled out", or any cue right after a colon ("Chest pain: not present")
        if _NEGATES_BEFORE.fullmatch(w) or (w.lower() == "out" and i and words[i - 1].lower() == "ruled") or (
                i and words[i - 1] == ":" and _NEGATES_AFTER.fullmatch(w)):
            seen = 0
            for k in range(i - 1, -1, -1):
                if words[k] == ":":
                    continue
                if not words[k][0].isalnum() or _CLAUSE.fullmatch(words[k]) or seen == _SCOPE_BEFORE:
                    break
                seen += 1
                if hits[k]:
                    return True
    return False


# words that frame a claim rather than state its content ("The user ...", "The patient ..."); the NLI
# head's features read exactly this set
FRAME_WORDS = frozenset("the a an user users patient patients he she his her him i my me we our they their it its is are was were "
                        "has have had be been of to in on at for and or with that this as by".split())
_FRAME = FRAME_WORDS | {"person", "s"}  # and the "s" of "the user's"
_NEGATION = NEGATION
_SUPPORT_SHARE = 0.6


def _digits_of(text: str) -> str:
    return re.sub(r"\D", "", text)


@dataclass(frozen=True)
class Value:
    """One value of a claim: ``text`` as written, ``kind`` (identifier, quoted, named, name, number,
    quantity, date, time, offset (a time zone), figure), ``strong`` (its presence alone is a leak), the ``quantity`` when it
    has a unit, the ``date`` when it is a calendar date."""

    text: str
    kind: str
    strong: bool
    quantity: Quantity | None = None
    date: CalendarDate | None = None

    # computed once per value (a value meets every sentence of its document)
    @cached_property
    def tokens(self) -> tuple[str, ...]:
        return _tokens(self.text)

    @cached_property
    def and_tokens(self) -> tuple[str, ...]:
        """The tokens with "and" for the value's "&" ("Bramble & Oak" as "Bramble and Oak"); empty without one."""
        return _tokens(re.sub(r"\s*&\s*", " and ", self.text)) if "&" in self.text else ()

    @cached_property
    def spellings(self) -> tuple[tuple[str, ...], ...]:
        return (self.tokens, self.and_tokens) if self.and_tokens else (self.tokens,)

    @cached_property
    def compact(self) -> str:
        """The value's letters and digits, folded, without what separates them."""
        return "".join(self.tokens)

    @cached_property
    def spaced(self) -> bool:
        """A code long enough to be found in other spacing: 10 letters and digits or more, 6 of them digits (an IBAN,
        a card, account or licence number); shorter runs could be written by chance across two tokens."""
        return len(self.compact) >= 10 and sum(c.isdigit() for c in self.compact) >= 6

    @cached_property
    def digits(self) -> str:
        return _digits_of(self.text)

    @cached_property
    def numbers(self) -> frozenset[str]:
        return frozenset(extract_numbers(self.text))


def _fold(text: str) -> str:
    """Lower case without accents: a reader takes "Krakow" for "Kraków" and "Jose" for "José"."""
    if text.isascii():
        return text.lower()
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(_fold(text)))


@lru_cache(maxsize=65536)
def claim_values(claim: str) -> tuple[Value, ...]:
    """The values of ``claim`` (see the module docstring), each once."""
    out: list[Value] = []
    covered: list[tuple[int, int]] = []

    def add(start: int, end: int, value: Value) -> None:
        if any(start < b and a < end for a, b in covered):
            return
        if not value.tokens:
            return
        covered.append((start, end))
        out.append(value)

    for m in UTC_OFFSET.finditer(claim):  # before the clock times: "UTC+05:30" is a zone, not half past five
        if utc_offset(m) is not None:
            add(m.start(), m.end(), Value(m.group(0), "offset", True))
    for m in _CUE.finditer(claim):
        text = m.group(2).rstrip(".,;:!?'\"`\u2019\u201d")
        if text.lower() in _NOT_NAMES or text.lower() in _FRAME or len(text) < 2 or (text.islower() and text in common_words()):
            continue
        if text.islower() and re.fullmatch(r"[a-z]+(?:ing|ed)", text) and text in english_words() \
                and claim[m.start(2) + len(text) :].strip(" .!?\"'") \
                and not re.search(r"named|called|titled|known", claim[m.start() : m.start(2)], re.IGNORECASE):
            continue  # a verb with more after it ("the user's employer is paying EUR 1,800 ..."), not a name ("branch is staging.")
        long = _LONG_NUMBER.match(claim, m.start(2))
        if long and sum(c.isdigit() for c in long.group(0)) >= 7:
            text = long.group(0).strip()  # a number written in groups: "phone number is 086 555 0133"
        kind = "number" if sum(c.isdigit() for c in text) >= 7 and not re.search(r"[A-Za-z]", text) else "named"
        add(m.start(2), m.start(2) + len(text), Value(text, kind, True))
    for m in _QUOTED.finditer(claim):
        add(m.start(2), m.end(2), Value(m.group(2).strip(), "quoted", True))
    for d in find_dates(claim, foreign=False):
        add(d.start, d.end, Value(d.text, "date", all(y is not None for y, _, _ in d.readings), date=d))
    for q in find_quantities(claim):
        if q.unit == "mm" and re.match(r"\s*hg\b", claim[q.end :], re.IGNORECASE):
            continue  # "90/60 mm Hg" is a blood pressure, not a length of 60 mm
        if q.dimension != "time":  # durations and ages recur in every record: the number guard's business
            add(q.start, q.end, Value(q.text, "quantity", False, q))
    for m in _LONG_NUMBER.finditer(claim):
        if sum(c.isdigit() for c in m.group(0)) >= 7:
            add(m.start(), m.end(), Value(m.group(0).strip(), "number", True))
    for m in CLOCK.finditer(claim):
        if int(m.group(1)) <= 23:
            add(m.start(), m.end(), Value(m.group(0), "time", False))
    for m in _FIGURE.finditer(claim):
        add(m.start(), m.end(), Value(m.group(0), "figure", False))
    for m in _IDENTIFIER.finditer(claim):
        text = m.group(0).rstrip(".,;:")
        if re.search(r"\d[\d,.]*\s*/?$", claim[: m.start()]):  # a unit after a number ("16,800/mm3", "9 mEq/L")
            continue
        if re.fullmatch(r"[\w-]+", text) and "_" not in text and not re.search(r"[a-z]{2}[A-Z]", text) \
                and not (sum(c.isdigit() for c in text) >= 2 and sum(c.isalpha() for c in text) >= 2) \
                and not ("-" in text and text.lower() not in english_words() and any(c.isalpha() for c in text)):
            continue  # a plain or hyphenated English word, or a unit or formula ("mm3", "H2O", "A1c"); "dispatch-prod" stays
        if re.fullmatch(r"[\d.,:-]+", text):  # plain numbers, times and ranges: the number guard's business
            continue
        if re.fullmatch(r"\d+-(?:year|month|week|day|hour)s?-old|\d+(?:st|nd|rd|th)", text, re.IGNORECASE):
            continue
        if text.isalpha() and text[0].isupper():  # "PostgreSQL", "GitHub": a product's name, not an identifier
            continue
        add(m.start(), m.start() + len(text), Value(text, "identifier", True))
    first_word_end = len(claim) - len(claim.lstrip()) + len((claim.split() or [""])[0])
    for m in _CAPITALISED.finditer(claim):
        if m.start() < first_word_end:
            continue
        words = m.group(1).split()
        while words and (words[0].lower() in _NOT_NAMES or _ACRONYM.match(words[0])):
            words = words[1:]
        while words and (words[-1].lower() in _NOT_NAMES or _ACRONYM.match(words[-1])):
            words = words[:-1]
        if not words:
            continue
        text = " ".join(words)
        add(m.start(), m.end(), Value(text, "name", sum(w[0].isupper() for w in words) >= 2))
    for m in _MENTION.finditer(claim):  # last: a name or identifier inside it is matched as itself
        text = m.group(1).strip()
        if text and text.lower() not in _FRAME and len(text) <= 80:
            add(m.start(1), m.start(1) + len(text), Value(text, "named", True))
            # "The user mentions the year 2013." states only that the value is written: a year, an amount
            # or a date inside it is the whole fact, found anywhere (not only beside another claim word)
            for k, ((a, b), v) in enumerate(zip(covered, out)):  # add() appends to both lists together
                if not v.strong and m.start(1) <= a and b <= m.start(1) + len(text):
                    out[k] = replace(v, kind="named", strong=True)
    return tuple(out)


@dataclass(frozen=True)
class _Sentence:
    """One sentence of a document as the value rules read it. Every field past the words is computed on first
    use: most claims ask only for one kind of value, and a document's sentences are read once per run."""

    text: str
    tokens: tuple[str, ...]
    stems: frozenset[str]
    numbers: frozenset[str]

    @cached_property
    def quantities(self) -> tuple[Quantity, ...]:
        return find_quantities(self.text)

    @cached_property
    def dates(self) -> tuple[CalendarDate, ...]:
        return find_dates(self.text)

    @cached_property
    def times(self) -> frozenset[str]:
        return frozenset(clock(m) for m in CLOCK.finditer(self.text))

    @cached_property
    def joined(self) -> str:
        return "".join(self.tokens)

    @cached_property
    def negated(self) -> bool:
        return bool(_NEGATION.search(self.text))

    @cached_property
    def amounts(self) -> frozenset[float]:
        return _amounts(self.text, self.numbers)

    @cached_property
    def offsets(self) -> frozenset[int]:
        return utc_offsets(self.text)

    @cached_property
    def pieces(self) -> frozenset[str]:
        """The words inside camelCase and hashtag compounds ("#SamAndRuvi2025": sam, and, ruvi)."""
        return _compound_pieces(self.text)

    @cached_property
    def compounds(self) -> tuple[str, ...]:
        """Identifiers (addresses, domains, handles), folded, separators dropped: "priyarfenwickbiocom"."""
        return tuple("".join(_tokens(m.group(0))) for m in _COMPOUND_WORD.finditer(self.text))

    @cached_property
    def long_numbers(self) -> tuple[str, ...]:
        """Long numbers as written ("+353 86 555 0133"): where a country code may be read."""
        return tuple(m.group(0) for m in _LONG_NUMBER.finditer(self.text))

    @cached_property
    def words(self) -> frozenset[str]:
        """The words as written, case kept: "Will" is a name where "will" is not."""
        return frozenset(_WORD.findall(self.text))


@lru_cache(maxsize=8192)
def _sentences(document: str) -> tuple[_Sentence, ...]:
    return tuple(_Sentence(s, _tokens(s), frozenset(rouge_tokens(s)), frozenset(extract_numbers(s)))
                 for s in split_sentences(document, lowercase_starts=True))


_COMPOUND = re.compile(r"\b\w*[a-z][A-Z]\w*")  # a word with a capital after a small letter: "SamAndRuvi2025", "CrumbKettle"
_NAME_PREFIX = re.compile(r"(?:Mc|Mac|De|Di|Da|Du|La|Le|Van|Von|O)[A-Z][a-z]")  # "McDonald", "MacKenzie", "DeLuca": one name
# a word with a separator or a capital inside it ("priya.r@fenwickbio.com", "shop.brambleandoak.co.uk", "#SamAndRuvi")
_COMPOUND_WORD = re.compile(r"[\w#@]*[\w](?:[.@#/_][\w-]+)+|#\w+|\b\w*[a-z][A-Z]\w*")
_WORD = regex.compile(r"[\p{L}\p{N}]+")
_ORDINARY_WORDS = 20000  # the most frequent words ("will", "bill", "rose", "grace"): a one-word name among them is read case-sensitively
_PIECE = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|\d+")


def _compound_pieces(sentence: str) -> frozenset[str]:
    """The words inside the sentence's camelCase and hashtag compounds, folded; empty when it writes none."""
    if not _COMPOUND.search(sentence):
        return frozenset()
    return frozenset(_fold(p) for m in _COMPOUND.finditer(sentence) if not _NAME_PREFIX.match(m.group(0))
                     for p in _PIECE.findall(m.group(0)))


_WORDS_ONLY = regex.compile(r"\p{L}[\p{L}'’-]*(?:\s+(?:&\s+)?\p{L}[\p{L}'’-]*)+")


@lru_cache(maxsize=4096)
def _across_lines(name: str) -> re.Pattern:
    """``name``'s words with any white space between them, line breaks included ("Ysgol Glan\nUsk")."""
    return re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in name.split()) + r"(?!\w)", re.IGNORECASE)


_COUNTED = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)\s+([a-z]{3,}s)\b")  # "1200 tenants": a number before a plural noun
_NUMBER_ALONE = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?![\w,]|\.\d)")
_MONEY_PLURALS = frozenset("dollars euros pounds rupees bucks quid pence cents yen francs kronor kroner rand pesos reais zloty lakhs "
                           "lacs crores thousands millions grand".split())


def _amounts(sentence: str, numbers: frozenset[str] | None = None) -> frozenset[float]:
    """Numbers of 100 or more and amounts with a scale word ("28.5k", "3.5 lac"): where a claim's sum of
    money may be written without its currency ("emi 11200", "rent 28.5k"). ``numbers``: the sentence's
    :func:`extract_numbers`, when already computed."""
    plain = {float(n) for n in (extract_numbers(sentence) if numbers is None else numbers) if re.fullmatch(r"\d+(?:\.\d+)?", n)}
    if plain and _COUNTED.search(sentence):
        # a number that counts things ("1200 tenants", "3400 units") is no sum of money, unless written again alone
        def counts(at: int) -> re.Match | None:
            m = _COUNTED.match(sentence, at)
            return m if m and m.group(2).lower() not in _MONEY_PLURALS else None

        counted: set[float] = set()
        alone: set[float] = set()
        for m in _NUMBER_ALONE.finditer(sentence):
            (counted if counts(m.start()) else alone).update(float(c) for c in extract_numbers(m.group(0)))
        plain -= counted - alone
    return frozenset(a for a in plain | set(bare_amounts(sentence)) if a >= 100)


def _contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    n = len(needle)
    if n == 1:
        return needle[0] in haystack
    first = needle[0]
    return any(haystack[i] == first and haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def _misspelt(written: str, word: str) -> bool:
    """``written`` is ``word`` with one typo (an edit, or two letters swapped): letters only, at least
    five of them; digits must match exactly ("orion-db02" is not "orion-db03")."""
    return written.isalpha() and word.isalpha() and len(word) >= 5 and one_typo_apart(written, word)


def _contains_misspelt(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    """A name of two words or more written with one typo a reader reads through: one word one typo
    away, the others exact ("Zenit bank" for Zenith Bank, "Blue Cros of Idaho"). A name of one word
    must match exactly: Renata and Renato, Daniela and Daniele are two people."""
    n = len(needle)
    if n < 2:
        return False
    for i in range(len(haystack) - n + 1):
        window = haystack[i : i + n]
        off = [(h, w) for h, w in zip(window, needle) if h != w]
        if len(off) == 1 and _misspelt(*off[0]):
            return True
    return False


def _quantity_in(quantity: Quantity, sentence: _Sentence, near: bool = False) -> bool:
    """Whether ``sentence`` writes ``quantity`` (:func:`same_quantity`; a sum of money also as a bare amount, "emi
    11200"); ``near``: or within the rounding a conversion forgives in the same unit (EUR 1,245 for EUR 1,240, "almost
    4 GB" for 3.9 GB), a small change, which is written (not 3) but not stated (not 1)."""
    if any(same_quantity(quantity, q, near=near) for q in sentence.quantities):
        return True
    tolerance = (0.005 if near else 1e-9) * quantity.value
    return quantity.dimension.startswith("money:") and any(abs(a - quantity.value) <= tolerance for a in sentence.amounts)


def _found_in(value: Value, sentence: _Sentence) -> bool:
    if value.quantity is not None:
        return _quantity_in(value.quantity, sentence)
    if value.date is not None:
        return any(same_date(value.date, d) for d in sentence.dates)
    if value.kind == "offset":  # "+0530" in a log's date line is "UTC+05:30"; "+05:30" alone as its clock reading
        return bool(utc_offsets(value.text) & sentence.offsets) or any(clock(m) in sentence.times for m in CLOCK.finditer(value.text))
    if value.kind == "time":
        return any(clock(m) in sentence.times for m in CLOCK.finditer(value.text))
    if value.kind in ("name", "named") and len(value.tokens) > 1 and any("".join(t) in c for t in value.spellings for c in sentence.compounds):
        # "Fenwick Bio" in "priya.r@fenwickbio.com", "Bramble & Oak" in "shop.brambleandoak.co.uk"; only inside an
        # address, a domain or a handle: "Ed Ward" is not in "Edward Smith", nor "Green Tree Capital" in "evergreen tree capital"
        return True
    if value.kind in ("identifier", "number", "named") and value.spaced and _aligned_in(value.compact, sentence, suffix=value.kind == "number"):
        return True  # a long code in other spacing: "IE64 IRCE 9205 0112 3456 78" in "IE64IRCE92050112345678"
    if value.and_tokens and _contains(sentence.tokens, value.and_tokens):
        return True  # "Bramble & Oak" written "Bramble and Oak"
    if value.kind == "figure":
        return bool(value.numbers & sentence.numbers)
    if value.kind == "number":
        # the same number with or without its country or area code: "+1 416 555 0139" for "416-555-0139"
        # and a national number's trunk 0 dropped after the country code: "+353 86 555 0133" for "086 555 0133"; the extra
        # digits only as a code written apart ("+", "00" or a group of its own), not "98812345" for 8812345
        national = value.digits[1:] if value.digits.startswith("0") else value.digits
        for written in sentence.long_numbers:
            d = _digits_of(written)
            if min(len(d), len(national)) < 7:
                continue
            if d == value.digits or d == national:
                return True
            if (d.endswith(value.digits) or d.endswith(national)) and _country_code(written, len(d) - len(national if d.endswith(national) else value.digits)):
                return True
            if value.digits.endswith(d) and _country_code(value.text, len(value.digits) - len(d)):
                return True
        return False
    if value.kind in ("name", "named") and len(value.tokens) == 1 and value.tokens[0] in sentence.pieces:
        return True  # "Sam" in "#SamAndRuvi2025"
    if value.kind in ("name", "named") and len(value.tokens) == 1 and value.text[:1].isupper() and value.tokens[0] in common_words(_ORDINARY_WORDS) \
            and _capitalises(sentence.text):
        # "Will", "Bill", "Rose": a name that is also a word counts where the text writes it as a name (capitalised),
        # unless the writer does not capitalise ("my daughter hope (9) was in back", "i'm grace")
        return value.text in sentence.words or value.text.upper() in sentence.words
    return _contains(sentence.tokens, value.tokens) or (value.kind in ("name", "named", "quoted") and value.text.lower() != value.text
                                                          and _contains_misspelt(sentence.tokens, value.tokens))


def _lowercased_name(claim: str, value: Value, sentences: tuple[_Sentence, ...]) -> list[int]:
    """The sentences that write a one-word name in lower case right after the claim's word for its bearer ("my brother
    will is flying in" for "The user's brother is named Will"; not "he will visit"): a name :func:`_found_in` reads
    only capitalised, lowered by a release, is still written."""
    at = claim.find(value.text)
    bearers = {t for t in rouge_tokens(claim[:at]) if t not in _FRAME} if at > 0 else set()
    if not bearers:
        return []
    name = value.tokens[0]
    return [k for k, s in enumerate(sentences)
            if any(t == name and i > 0 and bearers.intersection(rouge_tokens(s.tokens[i - 1])) for i, t in enumerate(s.tokens))]


def _capitalises(sentence: str) -> bool:
    """Whether the sentence is written with capitals where English puts them: it opens with one and writes "I" as "I"."""
    first = next((c for c in sentence if c.isalpha()), "")
    return first.isupper() and re.search(r"(?<![\w'])i(?![\w'])", sentence) is None


def _country_code(written: str, extra: int) -> bool:
    """Whether the first ``extra`` digits of the number ``written`` are a country or trunk code written apart: after
    "+" or "00", or a group of their own ("1-800-555-0199"); at most three digits."""
    if not 0 < extra <= 3:
        return False
    stripped = written.strip().lstrip("(")
    if stripped.startswith("+") or stripped.startswith("00"):
        return True
    return re.match(rf"\d{{{extra}}}[\s().-]", stripped) is not None


@dataclass(frozen=True)
class ValueVerdict:
    """``cap``: the best-for-privacy rating the claim may keep (1, 2 or 3); ``values`` found;
    ``reason`` for the rating's detail; ``sentences``: the sentences that hold the found values, the one
    holding most of them first (where a judge should read the claim: :class:`textleak.judges.nli.NLIJudge`
    reads them beside its best span)."""

    cap: int
    values: tuple[str, ...]
    reason: str
    sentences: tuple[str, ...] = ()
    together: bool = False  # every value of the claim is written in sentences[0]


_IDENTIFYING = ("identifier", "named", "quoted", "number")
_NEAR = 6  # tokens either side of a value where a negation cue turns its sentence's polarity


def _ends_with_identifier(claim: str, values: tuple[Value, ...]) -> bool:
    """The claim states an identifier as its complement: "The database server's IP address is
    10.14.3.22." (an address, host, path, code or long number ending the claim). The identifier is
    then the fact: a text that writes it, with the claim's other values, states the claim. Not a
    proper name: "works at Acme Corp" is not stated by "bought a printer from Acme Corp"."""
    tail = claim.rstrip().rstrip(".!?;:'\"\u2019\u201d)").rstrip()
    last = max(values, key=lambda v: claim.rfind(v.text))
    return tail.endswith(last.text) and last.kind in _IDENTIFYING


def _occurrences(values: Sequence[Value], tokens: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    """(start, length) of every place ``values`` are written, token for token, in ``tokens``."""
    for v in values:
        n = len(v.tokens)
        for i in range(len(tokens) - n + 1):
            if n and tokens[i : i + n] == v.tokens:
                yield i, n


def _polarity_near(values: tuple[Value, ...], sentence: _Sentence, claim_negated: bool) -> bool:
    """No negation cue within a few tokens of the claim's values, unless the claim negates too: "was not
    started" beside a drug's name turns the sentence, "could not connect" ten words before an IP in a
    log line does not."""
    tokens = sentence.tokens
    near: set[int] = set()
    for i, n in _occurrences(values, tokens):
        near.update(range(max(0, i - _NEAR), min(len(tokens), i + n + _NEAR)))
    if not near:  # a date or quantity found in another format: the whole sentence decides
        return sentence.negated == claim_negated
    window = re.sub(r"n t\b", "n't", " ".join(tokens[i] for i in sorted(near)))  # tokens split "isn't" as "isn t"
    return bool(_NEGATION.search(window)) == claim_negated


_NEGATING_TOKENS = frozenset("not never isn wasn aren weren doesn didn don nor".split())  # not "no": "Member no. VF-0093317"
# before a value, a little further: "I'd never pick rickard", "no longer rickard", "nobody calls me 'Bluefox'"
_NEGATING_FAR = frozenset("never nobody longer anymore".split())
# after it: "rickard is not my username", "ariel isn't the host"
_NEGATED_AFTER = frozenset("not isn wasn aren weren".split())


def _negated_before(values: Sequence[Value], sentence: _Sentence) -> bool:
    """Whether every occurrence of ``values`` in ``sentence`` is directly negated (a negation among the two
    tokens before it: "it's not OOMKilled", "my username isn't rickard"; "never", "nobody", "no longer" a little
    further; "not" or "isn't" right after it: "rickard is not my username"); false where a value is not found as
    tokens (a joined name, a date in another format): the sentence then keeps its reading."""
    tokens = sentence.tokens
    places = list(_occurrences(values, tokens))
    return bool(places) and all(_NEGATING_TOKENS.intersection(tokens[max(0, i - 2) : i]) or _NEGATING_FAR.intersection(tokens[max(0, i - 5) : i])
                                or _NEGATED_AFTER.intersection(tokens[i + n : i + n + 2]) or "anymore" in tokens[i + n : i + n + 6]
                                for i, n in places)


def value_verdict(claim: str, document: str, places: bool = False) -> ValueVerdict:
    """What the claim's values found in ``document`` allow: cap 3 (nothing found: no constraint), 2
    (a value is written: not unsupported) or 1 (the values and the claim's relation are written).
    ``places``: a city the claim names, released as its country or state, caps at 2 too (:func:`_coarser_verdict`)."""
    values = claim_values(claim)
    if not values:
        return _coarser_verdict(claim, document, places)
    sentences = _sentences(document)
    value_stems = {t for v in values for t in rouge_tokens(v.text)}
    content = frozenset(t for t in rouge_tokens(claim) if t not in _FRAME and t not in value_stems)
    others = content - _NAMING_WORDS
    claim_negated = bool(_NEGATION.search(claim))
    found: dict[Value, list[int]] = {}
    near = False  # a value found only as a small change: written, never stated
    for v in values:
        hits = [k for k, s in enumerate(sentences) if _found_in(v, s)]
        if not hits and v.quantity is not None:
            hits = [k for k, s in enumerate(sentences) if _quantity_in(v.quantity, s, near=True)]
            near = near or bool(hits)
        if not hits and v.kind in ("name", "named") and len(v.tokens) == 1:
            hits = _lowercased_name(claim, v, sentences)
        if not hits and v.kind in ("name", "named", "quoted") and len(v.tokens) > 1 and "\n" in document \
                and _WORDS_ONLY.fullmatch(v.text) and _across_lines(v.text).search(document):
            # a name a line break splits ("the Crux\nWall climbing gym"): found where its first word is written
            hits = [next((k for k, s in enumerate(sentences) if v.tokens[0] in s.tokens), 0)]
        if hits and not v.strong and v.kind != "name":
            # a quantity or a date without its year counts only beside another word of the claim
            hits = [k for k in hits if not content or (content & sentences[k].stems)]
        if hits:
            found[v] = hits
    # a time zone the text does not write is a qualifier, as a name that is not written: it does not count against
    # the values that are ("10:00 UTC+1" against "10:00 CET")
    values = tuple(v for v in values if v in found or v.kind != "offset")
    if not found:
        return _coarser_verdict(claim, document, places)
    names = tuple(v.text for v in found)
    held: dict[int, int] = {}
    for hits in found.values():
        for k in hits:
            held[k] = held.get(k, 0) + 1
    where = tuple(sentences[k].text for k in sorted(held, key=lambda k: (-held[k], k)))
    together = len(found) == len(values) and max(held.values()) == len(values) and not near  # near: never stated
    loose = _loose_numbers(claim, values)

    def states_numbers(k: int) -> bool:  # the claim's other numbers are written there too ("7 hours" is not "4 hours")
        return not near and loose <= sentences[k].numbers

    strong = [v for v in values if v.strong]
    if strong and all(v in found for v in strong) and any(states_numbers(k) for v in strong for k in found[v]) and all(v in found or v.kind == "name" for v in values) \
            and (not others or any(v.kind in ("named", "quoted") for v in strong)) \
            and (claim_negated or not all(_negated_before((v,), sentences[k]) for v in strong for k in found[v])):
        # a naming claim ("The user's Linux username is rickard."): the name is the fact; a qualifier
        # the text does not repeat ("Linux") does not make it private
        return ValueVerdict(1, names, "the claim's name or identifier is written in the text", where, together)
    if len(found) == len(values):
        shared = set.intersection(*(set(h) for h in found.values()))
        for k in shared:
            s = sentences[k]
            if states_numbers(k) and s.negated == claim_negated and (claim_negated or not _negated_before(tuple(found), s)) \
                    and (not others or len(others & s.stems) >= _SUPPORT_SHARE * len(others)):
                return ValueVerdict(1, names, "the claim's values are written in a sentence that states its relation", where, together)
    if len(found) == len(values) and _ends_with_identifier(claim, values):
        for k in set.intersection(*(set(h) for h in found.values())):
            if states_numbers(k) and _polarity_near(values, sentences[k], claim_negated):
                return ValueVerdict(1, names, "the claim's identifier is written in the text, with no negation near it", where, together)
    if any(v.strong for v in found) or len(found) == len(values):
        return ValueVerdict(2, names, "a value of the claim is written in the text", where, together)
    return _coarser_verdict(claim, document, places)


def _loose_numbers(claim: str, values: Sequence[Value]) -> frozenset[str]:
    """The claim's numbers outside its values ("5" in "Customer 88213 has 5 orders"): a sentence that writes the
    values states the claim only if it writes these too."""
    rest = claim
    for v in values:
        rest = rest.replace(v.text, " ")
    return frozenset(extract_numbers(rest, count_word_one=False))


def _coarser_verdict(claim: str, document: str, places: bool = False) -> ValueVerdict:
    """Cap 2 when, with ``places``, the text writes the country or state that holds a city the claim names and
    does not write the city (:mod:`textleak.text.places`), or when a sentence that shares a content word with the claim writes one of its versions, addresses,
    dates or clock times more coarsely ("Node 20" for 20.11.1, "10.x" for 10.42.7.19, "in March" for 3 March
    2025, "about 3am" for 03:12: :mod:`textleak.text.coarse`): a generalisation, "similar" in seed 000's
    rubric, not unsupported. The shared word keeps another topic's month or version out."""
    specifics = specific_values(claim)
    if specifics:
        # a number's unit ("km", "years old") stays a word the sentence may share with the claim
        value_stems = {t for v in specifics if v.kind != "number" for t in rouge_tokens(v.text)}
        content = frozenset(t for t in rouge_tokens(claim) if t not in _FRAME and t not in value_stems and not t.isdigit())
        ages = any(v.dimension == "age" for v in specifics)
        for read in _sentences(document):  # the value rules' reading of the document, split and stemmed once
            sentence, shared = read.text, bool(content & read.stems)
            if shared or ages:  # an age range ("in my mid-twenties") names what it is: it needs no shared word
                hits = tuple(v.text for v in specifics if (shared or v.dimension == "age") and coarser_written(v, sentence))
                if hits:
                    return ValueVerdict(2, hits, "a coarser form of the claim's value is written in the text (a generalisation)", (sentence,))
    # last, so that a coarser date or version keeps its sentence for the judge to read
    for v in claim_values(claim) if places else ():  # a city released as its country or state ("Leipzig" as "eastern Germany")
        if v.kind == "name" and (unit := coarser_place_written(v.text, document)) is not None:
            return ValueVerdict(2, (unit,), f"the country or state that holds {v.text} is written in the text (a generalisation)")
    return ValueVerdict(3, (), "")


# words, and numbers with their inner separators ("3,200", "24-318877", "3.11.4"), not digits inside a code ("M1 1AE")
_SLOT_TOKEN = re.compile(r"[^\W\d_]+|(?<![^\W_])(?<![^\W_][.,/-])\d(?:[\d,./-]*\d)?(?![^\W_])")
_CODE = re.compile(r"[^\W_]+(?:[-_./:#][^\W_]+)*")  # "x2kqp", "ledger-worker-7d9f8c6b5-x2kqp", "GPT-4"
_SLOT_REACH = 3  # content words either side of a number that name its slot
# numbers written in forms the rival search does not read (number words with a scale, "a dozen", "five and a half",
# "4½", "type II"; digits with a scale word, "'85" and decimal commas it reads): where the text writes one, the
# claim's number may be there, so no rival is taken
_OTHER_NUMBER_FORMS = re.compile(r"\b(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|\w+ty)[\s-]+"
                                 r"(?:hundred|thousand|million|billion)\b|\bdozens?\b|\bhalf\b|\bquarter\b|[½¼¾⅓⅔⅛]|"
                                 r"(?-i:\b(?:II|III|IV|VI|VII|VIII|IX|XI|XII|WWI|WWII)\b)", re.IGNORECASE)


@lru_cache(maxsize=8192)
def _other_number_forms(document: str) -> bool:
    """Whether ``document`` writes a number in a form the rival search does not read (:data:`_OTHER_NUMBER_FORMS`)."""
    return _OTHER_NUMBER_FORMS.search(document) is not None


_MULTIPLIED = re.compile(r"\b(?:times|twice|thrice|each|per|every)\b|\d\s*[x×]\s*\d|[x×]\s*\d", re.IGNORECASE)


def _number_key(token: str) -> str:
    """A written number as one string to compare: thousands commas dropped, a decimal's trailing zeros dropped
    ("38.50" -> "38.5"), other separators kept ("24-318877", "3.11.4", "148/92")."""
    key = token.replace(",", "")
    if re.fullmatch(r"\d+\.\d+", key):
        key = key.rstrip("0").rstrip(".")
    return key


@lru_cache(maxsize=65536)
def _slotted_numbers(text: str) -> tuple[tuple[str, int, int, frozenset[str], str, str], ...]:
    """Each number of ``text`` (:func:`_number_key`, start, end) with the content words within :data:`_SLOT_REACH`
    tokens either side (its slot), and the first content word after it and before it within two tokens ("" for none)."""
    tokens = [(m.group(0), m.start(), m.end()) for m in _SLOT_TOKEN.finditer(text)]
    words = [t.lower() if not t[0].isdigit() and t.lower() not in _FRAME else "" for t, _, _ in tokens]
    out = []
    for k, (t, a, b) in enumerate(tokens):
        if not t[0].isdigit():
            continue
        near = [w for w in words[max(0, k - _SLOT_REACH) : k] + words[k + 1 : k + 1 + _SLOT_REACH] if w]
        after = next((w for w in words[k + 1 : k + 3] if w), "")
        before = next((w for w in reversed(words[max(0, k - 2) : k]) if w), "")
        out.append((_number_key(t), a, b, frozenset(near), after, before))
    return tuple(out)


def _near_miss(a: str, b: str) -> bool:
    """Two different numbers or codes a slip apart: one character inserted, deleted, changed or two adjacent ones
    swapped; two changes between equal-length strings of 4 characters or more ("318877" and "318787")."""
    return a != b and edits_apart(a, b, 2 if len(a) == len(b) and len(a) >= 4 else 1)


@lru_cache(maxsize=8192)
def _document_numbers(document: str) -> frozenset[str]:
    """Every number ``document`` writes, in every reading a reader may give it (:func:`_number_key`): as tokens, as
    :func:`extract_numbers` reads them (number words up to ninety-nine), with space or dot thousands ("1 234",
    "48.210") and decimal commas ("38,5"), amounts with a scale word ("12k"), the days, months and years of its dates
    ("12.06.2025": 12, 6, 2025), and the full years of "2014-18" and "'85"."""
    found = {_number_key(m.group(0)) for m in _SLOT_TOKEN.finditer(document) if m.group(0)[0].isdigit()}
    found |= set(extract_numbers(document))
    found |= {re.sub(r"[\s.'’\u00a0\u202f]", "", m.group(0)) for m in re.finditer(r"(?<![\d.,])\d{1,3}(?:[ .'’\u00a0\u202f]\d{3})+(?![\d])", document)}
    found |= {_number_key(m.group(0).replace(",", ".")) for m in re.finditer(r"(?<![\d,.])\d+,\d{1,2}(?![\d])", document)}
    found |= {_number_key(repr(a) if not float(a).is_integer() else str(int(a))) for a in bare_amounts(document)}
    for d in find_dates(document):
        for y, m, day in d.readings:
            found.update(str(x) for x in (y, m, day) if x is not None)
    for m in re.finditer(r"\b((?:19|20)\d\d)\s*[-–]\s*(\d\d)\b", document):  # "2014-18": 2018
        found.add(m.group(1)[:2] + m.group(2))
    for m in re.finditer(r"'(\d\d)\b", document):  # "'85": 1985 or 2085
        found.update({"19" + m.group(1), "20" + m.group(1)})
    return frozenset(found)


def _aligned_in(compact: str, sentence: _Sentence, suffix: bool = False) -> bool:
    """Whether ``compact`` (letters and digits, folded) is written in ``sentence`` as whole tokens in other spacing
    ("K 1234567" for "K1234567"): an occurrence in its joined tokens that starts where a token starts and ends
    where one ends; ``suffix``: or that ends a token and follows no digit (an IBAN's number in "IE64IRCE9205...")."""
    starts, ends, at = {0}, set(), 0
    for t in sentence.tokens:
        at += len(t)
        ends.add(at)
        starts.add(at)
    joined = sentence.joined
    i = joined.find(compact)
    while i >= 0:
        end = i + len(compact)
        if end in ends and (i in starts or (suffix and not joined[i - 1].isdigit())):
            return True
        i = joined.find(compact, i + 1)
    return False


_OPPOSITE_PAIRS = (
    "front rear", "front back", "upstairs downstairs", "senior junior", "north south", "east west", "northern southern",
    "eastern western", "left right", "upper lower", "increase decrease", "increased decreased", "positive negative",
    "approved rejected", "approved denied", "accepted rejected", "enabled disabled", "full-time part-time",
    "public private", "inbound outbound", "male female", "minimum maximum", "ascending descending",
    "profit loss", "credit debit", "inside outside", "morning evening",
)  # attributes, not relations: kinship, older/younger and before/after are converse by possessive ("my older brother");
# words that are also verbs or units (passed/failed, won/lost, min/max) are left out; "left" is read only before the noun
# that "right" precedes in the span ("left knee", "right knee"), never as a verb ("left Google", "right after")
_OPPOSITES: dict[str, frozenset[str]] = {}
for _pair in _OPPOSITE_PAIRS:
    _a, _b = _pair.split()
    _OPPOSITES[_a] = _OPPOSITES.get(_a, frozenset()) | {_b}
    _OPPOSITES[_b] = _OPPOSITES.get(_b, frozenset()) | {_a}
_OPPOSITE_TOKEN = re.compile(r"[a-z]+(?:-[a-z]+)?")
_CONVERSE = frozenset({"than", "of", "from", "to"})
_NOT = re.compile(r"\b(?:not|no|never|none|neither|nor|without)\b|n['’]t\b", re.IGNORECASE)  # "negative" itself is an opposite here


@lru_cache(maxsize=8192)
def _opposite_tokens(document: str) -> frozenset[str]:
    return frozenset(_OPPOSITE_TOKEN.findall(document.lower()))


def _opposite_written(claim: str, span: str, document: str) -> str | None:
    """The opposite (:data:`_OPPOSITE_PAIRS`) of a claim's word that ``span`` writes before the same content word as the
    claim's ("front bumper" for "rear bumper", "Junior Data Analyst" for "Senior Data Analyst"; not before "of", "than",
    "from", "to": "north of the river" is "the river is south of ..."), where ``document`` does not
    write the claim's word and neither the claim nor the span has a negation ("not", "no", "never", "n't": a
    negated opposite states the claim, "not positive" is "negative"), or None."""
    if _NOT.search(claim) or _NOT.search(span):
        return None
    claim_words, span_words = _OPPOSITE_TOKEN.findall(claim.lower()), _OPPOSITE_TOKEN.findall(span.lower())
    written = _opposite_tokens(document)
    for i, word in enumerate(claim_words):
        if word not in _OPPOSITES or word in written:
            continue
        head = next((w for w in claim_words[i + 1 :] if w not in _FRAME), "")
        if not head or _CONVERSE.intersection(claim_words[i + 1 : i + 2]):  # a relation read from either side: "north of"
            continue
        for k, other in enumerate(span_words):
            if other in _OPPOSITES[word] and not _CONVERSE.intersection(span_words[k + 1 : k + 2]) \
                    and next((w for w in span_words[k + 1 :] if w not in _FRAME), "") == head:
                return other
    return None


def rival_value(claim: str, span: str, document: str) -> str | None:
    """The near miss ``span`` writes in the place of a claim's number or code that ``document`` writes nowhere,
    or None. A number's rival shares its slot (a content word within three tokens; for a number of one or two
    digits, the first content word after or before it) and its unit, is none of the claim's own numbers, and is a
    slip apart ("gpa 2.4" for "GPA is 3.4", "4 EMIs" for "14 EMIs", "EUR 38" for "EUR 380", "24-318787" for
    "24-318877"); not where the span multiplies ("300 mg three times a day" is 900 mg daily) or the document writes
    numbers in forms this search does not read (:data:`_OTHER_NUMBER_FORMS`: words, scale words, Roman numerals,
    fractions). A code's rival (letters and digits, as the claim's, four characters or more, compared without
    separators and of the same length) is a slip apart anywhere in the span ("...-x2kqq" for "...-x2kqp"); a code
    the document writes in other spacing or with other separators ("GPT4" for "GPT-4") has none. A word's rival is
    its opposite before the same noun (:func:`_opposite_written`). The cross-encoder reads such a pair as the same
    fact; a reader sees another value: the claim is not stated (rated no better than 2 by
    :class:`textleak.judges.nli.NLIJudge`)."""
    sentences = _sentences(document)
    covered: list[tuple[int, int]] = []
    for v in claim_values(claim):
        if any(_found_in(v, s) for s in sentences):
            covered += [(m.start(), m.end()) for m in re.finditer(rf"(?<![\w.]){re.escape(v.text)}(?![\w])", claim)]
    if not _MULTIPLIED.search(span) and not _other_number_forms(document):
        written = _document_numbers(document)
        claim_numbers = _slotted_numbers(claim)
        own = {n for n, *_ in claim_numbers}
        claim_units = {(q.start, q.end): q.dimension for q in find_quantities(claim)}
        span_units = {(q.start, q.end): q.dimension for q in find_quantities(span)}

        def unit_at(units: dict[tuple[int, int], str], a: int, b: int) -> str | None:
            return next((u for (x, y), u in units.items() if x <= a and b <= y), None)

        rivals = [r for r in _slotted_numbers(span) if r[0] not in own]
        for number, a, b, slot, after, before in claim_numbers:
            if number in written or any(x <= a and b <= y for x, y in covered):
                continue
            unit = unit_at(claim_units, a, b)
            for other, c, d, other_slot, other_after, other_before in rivals:
                if unit_at(span_units, c, d) != unit or not _near_miss(_digits_of(number), _digits_of(other)):
                    continue
                if len(_digits_of(number)) <= 2:  # a small number needs the word beside it: "14 EMIs", "4 EMIs"
                    if (after and after == other_after) or (before and before == other_before):
                        return span[c:d]
                elif slot & other_slot:
                    return span[c:d]
    codes = [(m.group(0), "".join(_tokens(m.group(0)))) for m in _CODE.finditer(span)]
    for m in _CODE.finditer(claim):
        compact = "".join(_tokens(m.group(0)))
        if len(compact) < 4 or not any(c.isdigit() for c in compact) or not any(c.isalpha() for c in compact) \
                or any(x <= m.start() and m.end() <= y for x, y in covered) or any(_aligned_in(compact, s) for s in sentences):
            continue
        for written_code, other in codes:
            if len(other) == len(compact) and any(c.isalpha() for c in other) and any(c.isdigit() for c in other) \
                    and _near_miss(compact, other):
                return written_code.lower()
    return _opposite_written(claim, span, document)


def reader_view(document: str, claims: Sequence[str], layout: bool = True, terms: bool = True) -> str:
    """The document as a reader reads it against these claims: headings read with the line after them and
    table rows with their header (:func:`textleak.text.layout.read_layout`; ``layout=False`` leaves the lines as they are), typos repaired toward the claims' words
    (:func:`textleak.text.typos.repair_typos`), clinical abbreviations written as the claims write them
    (:func:`textleak.text.abbreviations.expand_toward`: "CKD" as "chronic kidney disease"; ``terms=False``
    leaves them, medicine names and lab values as written), quantities written in the claims' units
    (:func:`textleak.text.quantities.rewrite_units`; a lab value in the other unit system for its analyte, "creatinine
    133 µmol/L" as "1.5 mg/dL": :func:`textleak.text.lab_values.rewrite_lab_values`), and clock times and dates as the claims write them
    (:mod:`textleak.text.clock`, :mod:`textleak.text.dates`). All only bring the text closer to the claims."""
    return _read(document, claims, layout, terms)[0]


def reader_views(document: str, claims: Sequence[str]) -> tuple[str, str | None]:
    """The reader's view, and the document with its lines as laid out and its terms as written where the layout or
    the terms rewrite changed something, else None: the judge reads that one too, so a rewrite can add a statement
    and never hide one (:class:`textleak.judges.nli.NLIJudge`)."""
    view, rewritten = _read(document, claims, True, True)
    return view, _read(document, claims, False, False)[0] if rewritten else None


def _read(document: str, claims: Sequence[str], layout: bool, terms: bool) -> tuple[str, bool]:
    """:func:`reader_view`, and whether its layout reading or its terms (abbreviations, medicine names, lab values)
    changed the text."""
    from textleak.text.abbreviations import expand_toward
    from textleak.text.lab_values import rewrite_lab_values
    from textleak.text.quantities import quantities_of, rewrite_units
    from textleak.text.typos import repair_typos

    words = {w for c in claims for w in re.findall(r"[A-Za-z]+", c)}
    laid_out = read_layout(document) if layout else document
    text = repair_typos(laid_out, words)
    termed = expand_toward(text, claims) if terms else text
    rewritten = laid_out != document or termed != text
    text = rewrite_units(termed, quantities_of(claims))
    if terms:
        valued = rewrite_lab_values(text, claims)
        rewritten, text = rewritten or valued != text, valued
    return _in_claim_forms(text, claims), rewritten


def _in_claim_forms(text: str, claims: Sequence[str]) -> str:
    """Clock times and dates written as the claims write them."""
    claim_times = [m for c in claims for m in CLOCK.finditer(c)]
    if claim_times:  # clock times as the claims write them ("19:40" -> "7:40 pm"), where they write it one way
        forms: dict[str, set[str]] = {}
        for m in claim_times:
            forms.setdefault(clock(m), set()).add(m.group(0)[:-1] if (m.group(3) or "").lower() in ("am.", "pm.") else m.group(0))
        text = CLOCK.sub(lambda m: next(iter(forms[clock(m)])) if len(forms.get(clock(m), ())) == 1 else m.group(0), text)
    claim_dates = [d for c in claims for d in find_dates(c)]
    if not claim_dates:
        return text
    return rewrite_as(text, find_dates(text), claim_dates, lambda d, c: c.text != d.text and same_date(c, d))
