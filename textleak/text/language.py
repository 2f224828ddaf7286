"""A cheap guess of a record's script and language, so that text the English rules cannot read takes a
documented path instead of silently producing few or no claims.

Three tests, none downloading anything:

1. the **script** of the majority of the letters (Unicode character names: LATIN, CJK, HIRAGANA,
   THAI, ARABIC, CYRILLIC, ...), and whether that script separates words with spaces (Chinese,
   Japanese, Thai, Lao, Khmer and Burmese do not);
2. for Latin text, a **stop-word test**: short lists of function words of English, French, Spanish,
   German, Portuguese, Italian and Dutch are counted among the words (links and e-mail addresses left
   out); another language wins with at least 2 hits and more than twice the English hits;
3. for Latin text the lists do not place, where English function words are rare (under a tenth of 8
   words or more) and the text runs (half its words lower case, links and paths aside: a list of names
   or addresses does not), a **classifier** (py3langid, 97 languages, no download): another language with
   p >= 0.9 wins ("Jag söker tjänsten som ..." is Swedish). So a name, a code, a roster or a product sheet
   still counts as English, and no English prose ever reaches the classifier.

The rule atomizer (:mod:`textleak.atomizers.rules`) routes on this guess and the leakage pipeline
counts the records that are not English (``LeakageReport.n_non_english``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

#: scripts written without spaces between words: sentences split on their punctuation only
UNSEGMENTED_SCRIPTS = frozenset({"han", "kana", "thai", "lao", "khmer", "myanmar", "tibetan"})
_SCRIPT_PREFIXES = {
    "LATIN": "latin", "CJK": "han", "HIRAGANA": "kana", "KATAKANA": "kana", "HANGUL": "hangul", "THAI": "thai",
    "LAO": "lao", "KHMER": "khmer", "MYANMAR": "myanmar", "TIBETAN": "tibetan", "ARABIC": "arabic",
    "CYRILLIC": "cyrillic", "GREEK": "greek", "HEBREW": "hebrew", "DEVANAGARI": "devanagari", "BENGALI": "bengali",
    "TAMIL": "tamil", "TELUGU": "telugu", "GUJARATI": "gujarati", "GURMUKHI": "gurmukhi", "ARMENIAN": "armenian",
    "GEORGIAN": "georgian", "ETHIOPIC": "ethiopic", "SINHALA": "sinhala", "KANNADA": "kannada", "MALAYALAM": "malayalam",
}
_MAX_LETTERS = 4000  # enough letters to decide; long records are not read to the end
_MAX_CHARS_STOP_WORDS = 8000  # likewise for the stop-word test

# Function words that are frequent in one language and not words of the others (so "a", "in", "son"
# and "die" are left out, and "de", "la", "que", shared by French, Spanish and Portuguese, are not
# counted for French). English wins ties; no hit at all counts as English.
_STOP_WORDS = {
    "en": set("the and of to is was with for that this are were has have had his her she he it not you your my "
              "i we they what how please can from which will would be been on at as by an or".split()),
    "fr": set("le les des du une est et je vous nous il elle dans sur avec pas qui au aux ce cet cette "
              "ces mon ma mes sont être avoir quels quel quelle très mais où moi ans depuis".split()),
    "es": set("el los las del una es y que por para con pero como mi su sus está yo usted muy tiene tienen años "
              "desde hace también".split()),
    "de": set("der das und ist nicht ich sie mit auf für den dem ein eine wir ihr sind zu von auch seit jahre".split()),
    "pt": set("os um uma é não que para por dos das eu você seu sua são muito tem anos também".split()),
    "it": set("il lo gli della che è con una sono mi ti sua suo del anni anche perché".split()),
    "nl": set("het een en van niet ik je jij wij voor op zijn dat heeft jaar sinds".split()),
}
_NOT_WORDS = re.compile(r"https?://\S+|www\.\S+|\S+@\S+|\S+\.(?:com|org|net|io)\b", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


@dataclass(frozen=True)
class LanguageGuess:
    """``script``: the majority script of the letters ("latin", "han", "cyrillic", ..., "none" when
    there is no letter); ``language``: the stop-word winner for Latin text ("en", "fr", ...), the
    script name otherwise; ``segmented``: words are separated by spaces; ``non_latin_share``: the
    share of letters outside the Latin script."""

    script: str
    language: str
    segmented: bool
    non_latin_share: float

    @property
    def english(self) -> bool:
        return self.language == "en"


@lru_cache(maxsize=65536)
def char_script(char: str) -> str:
    """The script of one letter ("latin", "han", "arabic", ..., "other")."""
    name = unicodedata.name(char, "")
    return _SCRIPT_PREFIXES.get(name.split(" ", 1)[0], "other") if name else "other"


def latin_language(text: str) -> str:
    """The stop-word test on Latin text (links and e-mail addresses left out): another language wins
    only with at least 2 hits and more than twice the English hits. Then, for text of 8 words or more
    in which under a tenth of the words are English function words (Swedish, Polish, Tagalog, ...: no
    list above, or a form or log), py3langid's classifier: another language with p >= 0.9 wins
    (:func:`_classified`); otherwise "en"."""
    counts = dict.fromkeys(_STOP_WORDS, 0)
    words = _LATIN_WORD.findall(_NOT_WORDS.sub(" ", text[:_MAX_CHARS_STOP_WORDS].lower()))
    for w in words:
        for lang in _LANGUAGES_OF.get(w, ()):
            counts[lang] += 1
    other = max((lang for lang in counts if lang != "en"), key=lambda lang: counts[lang])
    if counts[other] >= 2 and counts[other] > 2 * counts["en"]:
        return other
    if len(words) >= _CLASSIFIER_MIN_WORDS and counts["en"] < _CLASSIFIER_MAX_ENGLISH_SHARE * len(words):
        # running text, not a list of names, addresses or paths ("Piotr Nowak, Tomasz Wojcik, ..." is no Polish)
        plain = _NOT_WORDS.sub(" ", _PATHS.sub(" ", text[:_MAX_CHARS_STOP_WORDS]))
        written = _LATIN_WORD.findall(plain)
        if written and sum(w[0].islower() for w in written) >= 0.5 * len(written):
            return _classified(plain) or "en"
    return "en"


_PATHS = re.compile(r"(?:[A-Za-z]:)?(?:[/\\][^\s/\\]+){2,}")


# the classifier is asked only where English function words are rare (measured on 4,938 shared, labelled and
# held-out texts: 10 texts asked and flagged, all Swedish, Romanian, Tagalog, Portuguese, Danish, Vietnamese or
# Japanese; English logs, forms and code it calls English or leaves below p 0.9)
_CLASSIFIER_MIN_WORDS = 8
_CLASSIFIER_MAX_ENGLISH_SHARE = 0.10
_CLASSIFIER_MIN_P = 0.9


@lru_cache(maxsize=1)
def _identifier():
    """py3langid's model (97 languages, shipped in its wheel), loaded once, on the first text that needs it."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _classified(text: str) -> str | None:
    """The language py3langid gives ``text`` when it is not English ("zxx": no language) and p >= 0.9, else None."""
    language, p = _identifier().classify(text)
    return language if language not in ("en", "zxx") and p >= _CLASSIFIER_MIN_P else None


_FUNCTION_WORDS = frozenset().union(*_STOP_WORDS.values())
# each function word -> the languages whose list holds it (one dictionary look-up per word)
_LANGUAGES_OF = {w: tuple(lang for lang, words in _STOP_WORDS.items() if w in words) for w in _FUNCTION_WORDS}


def function_word_hits(text: str) -> int:
    """How many words of ``text`` are function words of any language above (links and e-mail
    addresses left out): a cheap sign that the text reads as running text in this order (the
    normaliser uses it to tell a reversed run from a readable one)."""
    return sum(1 for m in _LATIN_WORD.finditer(_NOT_WORDS.sub(" ", text[:_MAX_CHARS_STOP_WORDS].lower()))
               if m.group(0) in _FUNCTION_WORDS)


def detect_language(text: str) -> LanguageGuess:
    """The script and (for Latin text) the language of ``text``; see the module docstring. Of a release read two
    ways (:func:`textleak.text.normalize.normalize_release`), the first reading's: the respelled one, which a reader
    reads; the letters of "t h e  p a t i e n t" as written would count as function words of any language."""
    from textleak.text.normalize import READING_BREAK

    text = text.split(READING_BREAK, 1)[0]
    if text.isascii():
        has_letter = any(ch.isalpha() for ch in text)
        return LanguageGuess("latin", latin_language(text), True, 0.0) if has_letter else LanguageGuess("none", "en", True, 0.0)
    counts: dict[str, int] = {}
    seen = 0
    # the first _MAX_LETTERS letters, each distinct character's script looked up once (scripts in order of first sight)
    for ch, n in Counter(islice((ch for ch in text if ch.isalpha()), _MAX_LETTERS)).items():
        s = char_script(ch)
        counts[s] = counts.get(s, 0) + n
        seen += n
    if not seen:
        return LanguageGuess("none", "en", True, 0.0)
    script = max(counts, key=lambda s: (counts[s], s == "latin"))
    non_latin = 1.0 - counts.get("latin", 0) / seen
    if script == "latin":
        return LanguageGuess("latin", latin_language(text), True, non_latin)
    return LanguageGuess(script, script, script not in UNSEGMENTED_SCRIPTS, non_latin)
