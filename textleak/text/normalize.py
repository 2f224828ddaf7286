"""Text that reads the same to a person must read the same to the pipeline.

:func:`normalize_text` is applied once, to originals and sanitized records alike (and to precomputed
claims), before atomizing, linking, the lexical baseline and judging
(:func:`textleak.leakage.inputs.prepare_inputs`). Without it a sanitizer, or an attacker hiding leakage
from the measurement, could disguise a record nobody would call sanitized and raise its privacy score.
In order:

1. **HTML character references** unescaped (``&#101;``, ``&#x65;``, ``&eacute;``, ``&amp;``), as a
   browser shows them: numeric references with or without the ``;``, named ones only with it (so
   "AT&T" or "&notes" stay as written). One pass: ``&amp;#101;`` shows as ``&#101;``.
2. **Unicode NFKC** (full-width letters, ligatures, non-breaking spaces, superscript digits,
   mathematical letters).
3. **Bidi overrides as displayed**: a run under a right-to-left override (U+202E ... U+202C, or the end
   of the text: a line break does not end it here, as it does not on a web page, where a newline is a
   space) is shown reversed, so the pipeline reads what the reader sees: the run reversed
   (brackets mirrored) when that reading has more function words (:func:`function_word_hits`) than the
   stored order, the stored order when it has more, and both, stored then displayed, when neither has
   any (a number or a name under an override: either may be what leaks). A left-to-right override over
   right-to-left letters is treated alike. Embeddings and isolates (U+202A/B, U+2066-2069) do not
   reverse letters and are simply removed. Nested overrides are read as one run (an approximation).
4. **Blank fillers** (Hangul fillers U+3164, U+FFA0, U+115F, U+1160; braille blank U+2800) show as an
   empty space: between two visible characters they become one space, so the words they separate do
   not glue together; beside a space, at either end, or inside a Hangul syllable they are removed.
5. **Default-ignorable code points** (Unicode's ``Default_Ignorable_Code_Point``: zero-width space and
   joiners, the combining grapheme joiner U+034F, variation selectors U+FE00-FE0F and
   U+E0100-E01EF, Mongolian selectors U+180B-180F, tag characters U+E0000-E007F, soft hyphen, the
   byte-order mark, bidi controls) and other format characters (category Cf) removed.
6. **Look-alike letters folded** by Unicode's confusable skeleton (UTS #39, the data of the
   ``confusable-homoglyphs`` package): a letter or digit whose prototype is ASCII becomes that ASCII
   text, plus the Latin small capitals (ʀ -> r), which UTS #39 leaves as their own prototypes.
   Latin-script look-alikes (ɑ ı ɡ, small capitals ᴏ ꜱ ᴜ, long s ſ) are folded wherever they are;
   letters of other scripts (Cyrillic а, Greek ο, ...) inside a word that has Latin letters, and in
   words made wholly of look-alikes when most words of the text read as Latin once folded. Genuine
   Cyrillic, Greek or other text in a record mostly in that script is left as it is.

Pure ASCII text without ``&`` is returned at once (the common case costs one ``isascii``).
"""

from __future__ import annotations

import html
import html.entities
import re
import unicodedata
from functools import lru_cache

import regex

_WORD = re.compile(r"\w+")
_REFERENCE = re.compile(r"&(?:#[0-9]{1,7};?|#[xX][0-9a-fA-F]{1,6};?|[A-Za-z][A-Za-z0-9]{1,31};)")
# Default_Ignorable_Code_Point (and any other format character), as the `regex` module knows them
_INVISIBLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cf}]+")
# what NFKC leaves of the blank fillers (U+3164 and U+FFA0 become U+1160), and the braille blank
_FILLERS = "\u115f\u1160\u2800"
_FILLER_RUN = re.compile(f"[{_FILLERS}]+")
_JAMO = re.compile("[\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]")
_OVERRIDES = "\u202d\u202e"  # LRO, RLO
_PUSH = {"\u202a": None, "\u202b": None, "\u202d": "L", "\u202e": "R", "\u2066": None, "\u2067": None, "\u2068": None}
_POP_EMBEDDING, _POP_ISOLATE = "\u202c", "\u2069"
_ISOLATES = "\u2066\u2067\u2068"
_MIRROR = str.maketrans("()[]{}<>«»‹›", ")(][}{><»«›‹")
_SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")


def unescape_references(text: str) -> str:
    """HTML character references replaced by the characters a browser shows (see the module docstring)."""
    if "&" not in text:
        return text
    return _REFERENCE.sub(_unescape_one, text)


def _unescape_one(m: re.Match) -> str:
    ref = m.group(0)
    if ref[1] != "#" and ref[1:] not in html.entities.html5:  # "&notes;" is no reference ("&not" + "es;")
        return ref
    return html.unescape(ref)


def function_word_hits(text: str) -> int:
    """Function words of the languages :mod:`textleak.text.language` knows ("the", "and", "de", ...)
    in ``text``: how much of it reads as running text."""
    from textleak.text.language import function_word_hits as hits

    return hits(text)


def _displayed(run: str) -> str:
    """What a reader takes from a run shown reversed by an override (see the module docstring)."""
    if not any(c.isdigit() or (c.isalpha() and unicodedata.bidirectional(c) in ("L", "R", "AL")) for c in run):
        return run
    shown = run[::-1].translate(_MIRROR)
    stored_hits, shown_hits = function_word_hits(run), function_word_hits(shown)
    if shown_hits > stored_hits:
        return shown
    if stored_hits > shown_hits:
        return run
    return f"{run} {shown}"


def resolve_overrides(text: str) -> str:
    """Runs under a bidi override read as displayed; every bidi control removed (see the module docstring)."""
    if not any(c in _OVERRIDES for c in text):
        return text
    out: list[str] = []
    run: list[str] = []
    run_dir: str | None = None
    stack: list[tuple[str, str | None]] = []  # (control, override direction or None)

    def flush() -> None:
        if run:
            chars = "".join(run)
            reverses = (run_dir == "R" and any(unicodedata.bidirectional(c) not in ("R", "AL") for c in chars)) or (
                run_dir == "L" and any(unicodedata.bidirectional(c) in ("R", "AL") for c in chars))
            out.append(_displayed(chars) if reverses else chars)
            run.clear()

    for c in text:
        if c in _PUSH:
            stack.append((c, _PUSH[c]))
        elif c == _POP_EMBEDDING:
            if stack and stack[-1][0] not in _ISOLATES:
                stack.pop()
        elif c == _POP_ISOLATE:
            while stack and stack[-1][0] not in _ISOLATES:
                stack.pop()
            if stack:
                stack.pop()
        else:
            direction = stack[-1][1] if stack else None
            if direction != run_dir:
                flush()
                run_dir = direction
            if direction is None:
                out.append(c)
            else:
                run.append(c)
    flush()
    return "".join(out)


def _fill(m: re.Match) -> str:
    text, start, end = m.string, m.start(), m.end()
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before.isspace() or after.isspace() or _JAMO.match(before) or _JAMO.match(after):
        return ""
    return " "


@lru_cache(maxsize=1)
def _fold_table() -> dict[str, str]:
    """Non-ASCII letters and digits whose UTS #39 prototype is ASCII, with that prototype; and the
    Latin small capitals. The package's data lists each confusable pair in both directions: a source
    has exactly one entry (its prototype), so a one-entry letter whose entry is ASCII maps to it."""
    from confusable_homoglyphs import categories
    from confusable_homoglyphs.utils import load

    out: dict[str, str] = {}
    for char, entries in load("confusables.json").items():
        if len(char) != 1 or char.isascii() or not char.isalnum() or len(entries) != 1:
            continue
        target = unicodedata.normalize("NFD", entries[0]["c"])
        if not (target.isascii() and target.isalnum()):
            continue
        if len(target) > 1 and categories.alias(char) not in ("LATIN", "COMMON"):
            continue  # Cyrillic Ю -> "lO": a shape, not a letter a reader would read as Latin
        out[char] = target
    for code in range(0x80, 0x1E000):
        char = chr(code)
        m = _SMALL_CAPITAL.fullmatch(unicodedata.name(char, ""))
        if m:
            out.setdefault(char, m.group(1).lower())
    return out


@lru_cache(maxsize=65536)
def _script(char: str) -> str:
    from confusable_homoglyphs import categories

    return categories.alias(char)


def _latin_like(char: str) -> bool:
    return _script(char) in ("LATIN", "COMMON")


def _fold_word(word: str, fold_lookalikes: bool, table: dict[str, str]) -> str:
    """A word with its look-alikes folded: Latin-script ones always; other scripts' inside a word with
    Latin letters, or in a word made wholly of look-alikes when ``fold_lookalikes``."""
    if not any(c in table for c in word):
        return word
    has_latin = any(c.isalpha() and _script(c) == "LATIN" for c in word)
    fold_all = has_latin or (fold_lookalikes and all(c in table or not c.isalpha() or c.isascii() for c in word))
    return "".join(table[c] if c in table and (fold_all or _latin_like(c)) else c for c in word)


def fold_confusables(text: str) -> str:
    """Look-alike letters folded to ASCII (step 6 of the module docstring)."""
    table = _fold_table()
    if not any(c in table for c in text):
        return text
    words = [w for w in _WORD.findall(text) if any(c.isalpha() for c in w)]
    # a word reads as Latin once its look-alikes are folded: most such words make the text Latin
    latin_words = sum(1 for w in words if all(c.isascii() or c in table or not c.isalpha() for c in w))
    fold_lookalikes = bool(words) and latin_words / len(words) > 0.5
    return _WORD.sub(lambda m: _fold_word(m.group(0), fold_lookalikes, table), text)


def normalize_text(text: str) -> str:
    """The text as a reader sees it: references unescaped, NFKC, overrides as displayed, fillers as
    spaces, invisible characters removed, look-alikes folded (see the module docstring)."""
    if text.isascii():
        if "&" not in text:
            return text
        text = unescape_references(text)
        if text.isascii():
            return text
    else:
        text = unescape_references(text)
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return text
    text = resolve_overrides(text)
    if any(c in _FILLERS for c in text):
        text = _FILLER_RUN.sub(_fill, text)
    removed = _INVISIBLE.sub("", text)
    if removed != text:  # a removed joiner may have kept a letter and its accent apart
        text = unicodedata.normalize("NFKC", removed)
    if text.isascii():
        return text
    return fold_confusables(text)
