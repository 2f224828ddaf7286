"""Text that reads the same to a person must read the same to the pipeline.

:func:`normalize_text` (steps 1-6) is applied once, to originals and sanitized records alike (and to
precomputed claims), before atomizing, linking, the lexical baseline and judging
(:func:`textleak.leakage.inputs.prepare_inputs`); released records are also respelled (step 7,
:func:`normalize_release`), with their text as written kept beside the respelled reading. Without it a sanitizer, or an attacker hiding leakage
from the measurement, could disguise a record nobody would call sanitized and raise its privacy score.
In order:

1. **HTML character references** unescaped (``&#101;``, ``&#x65;``, ``&eacute;``, ``&amp;``), as a
   browser shows them: numeric references with or without the ``;``, named ones only with it (so
   "AT&T" or "&notes" stay as written). One pass: ``&amp;#101;`` shows as ``&#101;``.
2. **Unicode NFKC** (full-width letters, ligatures, non-breaking spaces, superscript digits,
   mathematical letters), after the letters of "fancy text" that NFKC leaves as symbols or wraps in
   parentheses are read as letters: parenthesized ⒜, negative circled 🅐 and negative squared 🅰.
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
7. **Spellings a reader reads through** (:func:`respell`; released records only, and both readings are
   kept, respelled then as written, so a misfire can add to what the judge reads but never hide what a
   release writes), each undone only where the text is written so:
   formatting tags inside a word ("pa<b></b>tient", as a browser shows them); spaces written as
   something else in a text that has almost none (URL escapes "%20", or one character between words:
   "The.patient", "The_patient", "The+patient"); stray combining marks (strike-through overlays, or as many marks as letters on a word: "Zalgo"
   text; accents strewn over an English text, "thé pâtïënt", when most accented words are English
   words without their accents and none with them, so French, Spanish or Vietnamese keep theirs);
   letters spaced out (most words one character, wider gaps between the words); letters joined by
   hyphens or dots ("p-a-t-i-e-n-t", "J.O.H.N": four letters or more, and every such word once three
   are); one word per line (eight lines or more, four in five of one word); and text without spaces
   (long lower-case runs that are no English word hold two fifths of its letters or more), split into
   English words by ``wordninja``; leetspeak ("p4713n7", when a sixth of the words or more, five at
   least, spell English words with digits for letters: then its short words too; numbers alone stay
   numbers, "15" may be "is" or fifteen). Abbreviations ("U.S.A.", "e.g."), versions, camelCase
   identifiers ("db01", "k8s", "l10n"), web and e-mail addresses, hashes, lists and code are left as
   written.

Steps 1-6 return pure ASCII text without ``&`` at once (the common case costs one ``isascii``); step 7 reads
every released text (about 100 microseconds per MedQA record).
"""

from __future__ import annotations

import html
import html.entities
import re
import unicodedata
from collections import Counter
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


# between a release's two readings (:func:`normalize_release`): whitespace to every reader of the text, and where
# the language guess stops (textleak.text.language.detect_language reads the respelled reading, the one a reader reads)
READING_BREAK = "\n\f\n"


def normalize_release(text: str) -> str:
    """A released record as a reader reads it: :func:`normalize_text`, then :func:`respell`; when respelling
    changes it, both readings, respelled then as written, so that a respelling that misfires (a list of
    passwords read as leetspeak, a column of names joined) can only add to what the judge reads, never take
    away what the release writes. Originals and claims are read by :func:`normalize_text` alone."""
    shown = normalize_text(text)
    spelled = respell(shown)
    return shown if spelled == shown else spelled + READING_BREAK + shown


def normalize_text(text: str) -> str:
    """The text as a reader sees it: references unescaped, NFKC, overrides as displayed, fillers as
    spaces, invisible characters removed, look-alikes folded (steps 1-6 of the module docstring)."""
    return _as_displayed(text)


# letters of "fancy text" that NFKC leaves as symbols or wraps in parentheses: parenthesized small letters
# (U+249C-24B5, NFKC "(a)"), negative circled and negative squared capitals (U+1F150-1F169, U+1F170-1F189)
_LETTER_FORMS = {**{0x249C + k: chr(97 + k) for k in range(26)}, **{0x1F150 + k: chr(65 + k) for k in range(26)},
                 **{0x1F170 + k: chr(65 + k) for k in range(26)}}


def _as_displayed(text: str) -> str:
    if text.isascii():
        if "&" not in text:
            return text
        text = unescape_references(text)
        if text.isascii():
            return text
    else:
        text = unescape_references(text)
    text = unicodedata.normalize("NFKC", text.translate(_LETTER_FORMS))
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


_MARKED_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*\p{M}[\p{L}\p{N}\p{M}]*")  # marks on letters and digits, not on "=" of "≠"
_MARK = regex.compile(r"\p{M}")
_OVERLAY_MARKS = regex.compile(r"[\u0334-\u0338\u20d2\u20d3\u20e5\u20e6]")
# a word spelled with dots takes its closing dot along when a capitalised word follows ("J.O.H.N. Smith" -> "JOHN Smith")
_SPELLED = re.compile(r"(?<![\w.-])[A-Za-z]([-.\u00b7])[A-Za-z](?:\1[A-Za-z]){2,}(?:\1(?=\s+[A-Z]))?(?![\w-]|\.\w)")
_SPELLED_SHORT = re.compile(r"(?<![\w.-])[A-Za-z](?:([-.\u00b7])[A-Za-z])(?:\1[A-Za-z])*(?:\1(?=\s+[A-Z]))?(?![\w-]|\.\w)")
_SPACED_GAP = re.compile(r"(?<=\S) (?=\S)")
_WIDE_GAP = re.compile(r"[ \t]{2,}")
_LINE_BREAK = re.compile(r"(?<=\S)[ \t]*\r?\n[ \t]*(?=\S)")


def respell(text: str) -> str:
    """Spellings a reader reads through at once, read as the words they spell (step 7 of the module docstring):
    formatting tags inside words ("pa<b></b>tient"), spaces written as "%20", dots, underscores or plus signs,
    stray combining marks ("Zalgo" text, strike-through overlays; accents strewn over an English text:
    "thé pâtïënt"), letters spaced out ("t h e  p a t i e n t", words two spaces apart), letters joined by
    hyphens or dots ("p-a-t-i-e-n-t", "J.O.H.N"), one word per line, text without spaces
    ("Apatientwithchestpain") and leetspeak ("p4713n7"). Each is detected before it is undone, so ordinary
    text, accented names, other languages, abbreviations, lists and code are left as written; a release keeps
    its text as written beside this reading (:func:`normalize_release`), since a detection can misfire."""
    if "<" in text:
        text = _INLINE_TAG.sub("", text)
    if _spaceless(text):
        text = _spaced_again(text)
    if not text.isascii():
        text = _unmark(text)
    if "  " in text and _letter_spaced(text):
        text = _WIDE_GAP.sub(" ", _SPACED_GAP.sub("", text))
    if "-" in text or "." in text or "\u00b7" in text:
        spelled = _SPELLED.findall(text)
        if spelled:
            # three words spelled out of four letters or more: the text is written so, its short words too ("t-h-e")
            pattern = _SPELLED_SHORT if len(spelled) >= 3 else _SPELLED
            text = pattern.sub(lambda m: re.sub(r"[-.\u00b7]", "", m.group(0)), text)
    if text.count("\n") >= 7 and _word_per_line(text):
        text = _LINE_BREAK.sub(" ", text)
    if _glued(text):
        text = _unglue(text)
    if _LEET_TOKEN.search(text):
        text = _unleet(text)
    return text


_LEET = {"4": "a", "@": "a", "3": "e", "0": "o", "5": "s", "$": "s", "7": "t", "8": "b", "9": "g"}
_LEET_TOKEN = re.compile(r"(?<![\w@$])(?=[\w@$]*[A-Za-z])(?=[\w@$]*[013-9@$])[A-Za-z0-9@$]{2,}(?![\w@$])")


def _leet_reading(token: str, shortest: int = 4) -> str | None:
    """The English word of ``shortest`` letters or more that ``token`` spells with digits for letters ("p4713n7" ->
    "patient"; a 1 is tried as i, then as l), or None."""
    from itertools import product

    from textleak.text.typos import english_words

    words = english_words()
    # a token that is itself a word ("mp3", "b12") is read as written, unless the text is known to be leetspeak
    if (shortest >= 4 and token.lower() in words) or sum(c.isalpha() for c in token) < min(2, shortest - 1):
        return None
    ones = [k for k, c in enumerate(token) if c == "1"]
    if len(ones) > 3:
        return None
    base = [_LEET.get(c, c) for c in token]
    for letters in product("il", repeat=len(ones)):
        for k, letter in zip(ones, letters):
            base[k] = letter
        word = "".join(base)
        if len(word) >= shortest and word.isalpha() and word.lower() in words:
            return word
    return None


def _unleet(text: str) -> str:
    """Leetspeak read as its words, where it is how the text is written: tokens mixing letters and digits that spell
    English words are a sixth of its words or more (five at least). Pure numbers are left alone: "15" may be "is"
    or fifteen."""
    tokens = _LEET_TOKEN.findall(text)
    hits = sum(1 for t in tokens if _leet_reading(t) is not None)
    if hits < 5 or hits < len(text.split()) / 6:
        return text
    # written so: its short words too ("7h3", "0f")
    readings = {t: r for t in set(tokens) if (r := _leet_reading(t, 2)) is not None}
    return _LEET_TOKEN.sub(lambda m: readings.get(m.group(0), m.group(0)), text)


_LONG_RUN = re.compile(r"[A-Z]?[a-z]{11,}")
_NON_SPACE = re.compile(r"\S+")
_ADDRESS = re.compile(r"://|@|^www\.|\w\.(?:com|org|net|io|co|uk|de|edu|gov|dev|app)\b", re.IGNORECASE)
_LETTER_RUN = re.compile(r"[A-Z]?[a-z]{5,}")  # a capital only in front: camelCase identifiers stay whole
_GLUE_POINT = re.compile(r"(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])|(?<=[a-z])(?=[A-Z])|(?<=[a-z][.,;:!?])(?=[A-Za-z])")


def _glued(text: str) -> bool:
    """Written without spaces: one space in twenty characters or fewer, and runs of twelve lower-case letters or
    more that are no English word (three such runs, or one of thirty letters) hold two fifths of the text's letters
    or more (two runs: three fifths). Prose in any language has spaces (German compounds sit among short words);
    camelCase breaks at its capitals, hashes mix digits, and web and e-mail addresses are not read. Texts under
    forty characters never are ("intraepidermal vs subepidermal split")."""
    if len(text) < 40 or text.count(" ") > 0.05 * len(text) or not _LONG_RUN.search(text):
        return False
    from textleak.text.typos import english_words

    words = english_words()
    runs = [len(run) for token in _NON_SPACE.findall(text) if not _ADDRESS.search(token)
            for run in _LONG_RUN.findall(token) if run.lower() not in words]
    if len(runs) < 3 and not any(n >= 30 for n in runs):
        return len(runs) == 2 and sum(runs) >= 0.6 * sum(map(str.isalpha, text))  # two long words and little else
    return sum(runs) >= 0.4 * sum(map(str.isalpha, text))


def _unglue(text: str) -> str:
    """The text with its letter runs split into English words (wordninja's unigram model, English Wikipedia
    frequencies) and spaces put back between letters and digits, before a capital and after a sentence's end;
    web and e-mail addresses are left as written."""
    import wordninja

    from textleak.text.typos import english_words

    words = english_words()

    def split(token: str) -> str:
        if _ADDRESS.search(token):
            return token
        token = _GLUE_POINT.sub(" ", token)
        return _LETTER_RUN.sub(lambda m: m.group(0) if m.group(0).lower() in words else " ".join(wordninja.split(m.group(0))), token)

    return _NON_SPACE.sub(lambda m: split(m.group(0)), text)


# formatting tags right after a letter or digit and before more text, shown as nothing ("pa<b></b>tient")
_INLINE_TAG = re.compile(r"(?<=[^\W_])(?:</?(?:b|i|u|s|em|strong|span|a|font|small|big|mark|code|tt|del|ins|sup|sub|wbr)"
                         r"(?:\s[^<>]*)?/?>)+(?=[^\s<])", re.IGNORECASE)
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_SEPARATOR = re.compile(r"(?<=[^\s._+~|])([._+~|])(?=[^\W_])")


def _spaceless(text: str) -> bool:
    """Forty characters or more and almost no spaces (one in fifty characters or fewer): words are then joined
    by something else."""
    return len(text) >= 40 and text.count(" ") <= 0.02 * len(text)


def _spaced_again(text: str) -> str:
    """Text whose spaces were written as something else, read with spaces: URL encoding ("The%20patient", five
    escapes or more, decoded) or one character between words ("The.patient.has", "The_patient", "The+patient": the
    most frequent such separator, ten times or more and once per fifteen letters or more, as often as words). Logs,
    paths and stack traces keep their spaces and are not read so."""
    if len(_PERCENT.findall(text)) >= 5:
        from urllib.parse import unquote

        return unquote(text)
    if "://" in text or "@" in text:  # addresses: their dots and underscores are theirs
        return text
    seen = Counter(m.group(1) for m in _SEPARATOR.finditer(text))
    if not seen:
        return text
    mark, count = seen.most_common(1)[0]
    if count < 10 or count < sum(map(str.isalpha, text)) / 15:  # one between words, not one a sentence ("pain.He")
        return text
    if mark == ".":  # a doubled dot ended a sentence; a dot between two digits is a decimal point
        text = re.sub(r"(?<=\S)\.\.(?=\S)", ". ", text)
        return re.sub(r"(?<=[^\s.])\.(?=[^\W_])(?<!\d\.(?=\d))", " ", text)
    return re.sub(rf"(?<=\S){re.escape(mark)}(?=[^\W_])", " ", text)


def _unmark(text: str) -> str:
    """Combining marks that do not spell: on every word that carries strike-through overlays or at least as many
    marks as letters (three or more: "Zalgo" text; Vietnamese stacks two at most); and, when a fifth or more of the text's words carry accents and
    most of them are English words without them and no words with them (accents strewn over English), on every
    marked word that is English without its marks."""
    decomposed = unicodedata.normalize("NFD", text)
    if not _MARK.search(decomposed):
        return text

    def bare(word: str) -> str:
        return "".join(c for c in word if not unicodedata.combining(c))

    def zalgo(m: re.Match) -> str:
        word = m.group(0)
        marks = len(word) - len(bare(word))
        return bare(word) if _OVERLAY_MARKS.search(word) or marks >= max(3, len(word) - marks) else word

    decomposed = _MARKED_WORD.sub(zalgo, decomposed)
    marked = _MARKED_WORD.findall(decomposed)
    if len(marked) >= 5 and len(marked) >= 0.2 * len(decomposed.split()):
        from textleak.text.typos import english_words

        words = english_words()
        english = {w for w in marked if bare(w).isascii() and bare(w).lower() in words}
        # an English word under accents it never carries ("pâtïënt"); French "été" or "hôpital" are words as written
        strewn = {w for w in english if unicodedata.normalize("NFC", w).lower() not in words}
        if len(strewn) >= 0.6 * len(set(marked)):
            decomposed = _MARKED_WORD.sub(lambda m: bare(m.group(0)) if m.group(0) in english else m.group(0), decomposed)
    return unicodedata.normalize("NFC", decomposed)


def _letter_spaced(text: str) -> bool:
    """Most words are single characters, and wider gaps mark where the spelled words end."""
    tokens = text.split()
    singles = sum(1 for t in tokens if len(t) == 1)
    return len(tokens) >= 12 and singles >= 0.6 * len(tokens) and len(_WIDE_GAP.findall(text)) >= 2


def _word_per_line(text: str) -> bool:
    """Eight lines or more, four in five of them a single word."""
    lines = [line.split() for line in text.splitlines() if line.strip()]
    return len(lines) >= 8 and sum(len(words) == 1 for words in lines) >= 0.8 * len(lines)
