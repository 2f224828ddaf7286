"""Text that reads the same to a person must read the same to the pipeline.

:func:`normalize_text` is applied once, to originals and sanitized records alike, before atomizing,
linking and judging (:func:`textleak.leakage.inputs.prepare_inputs`). Without it a sanitizer (or an
attacker hiding leakage from the measurement) could insert zero-width spaces or swap Latin letters for
Cyrillic look-alikes and raise the privacy score of a record nobody would call sanitized.

1. Unicode NFKC (full-width letters, ligatures, non-breaking spaces, superscript digits);
2. format characters (category Cf: zero-width space and joiners, bidi embeddings, overrides and
   isolates, the byte-order mark, soft hyphens) removed;
3. look-alike letters folded to Latin with Unicode's confusables data (the ``confusable-homoglyphs``
   package): inside a word that mixes Latin with another script, and in words wholly made of
   look-alikes when most letters of the text are Latin. Genuine Cyrillic, Greek or other text in a
   record that is mostly in that script is left as it is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _confusable_map() -> dict[str, str]:
    """Non-Latin letters (and digits) that Unicode lists as confusable with one Latin letter or digit."""
    from confusable_homoglyphs import categories, confusables  # noqa: F401  (the data file ships with it)
    from confusable_homoglyphs.utils import load

    data = load("confusables.json")
    out: dict[str, str] = {}
    for char, entries in data.items():
        if len(char) != 1 or categories.alias(char) in ("LATIN", "COMMON") or not char.isalnum():
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalnum():
                out[char] = target
                break
    return out


@lru_cache(maxsize=65536)
def _script(char: str) -> str:
    from confusable_homoglyphs import categories

    return categories.alias(char)


def _fold_word(word: str, mostly_latin: bool, table: dict[str, str]) -> str:
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return word
    scripts = {_script(c) for c in letters}
    if scripts <= {"LATIN"}:
        return word
    foldable = [c for c in word if c in table]
    if not foldable:
        return word
    if "LATIN" in scripts or (mostly_latin and all(c in table or not c.isalpha() for c in word)):
        return "".join(table.get(c, c) for c in word)
    return word


def normalize_text(text: str) -> str:
    """NFKC, format characters removed, Latin look-alikes folded (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text)
    if any(unicodedata.category(c) == "Cf" for c in text):
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    if text.isascii():
        return text
    table = _confusable_map()
    if not any(c in table for c in text):
        return text
    letters = [c for c in text if c.isalpha()]
    latin = sum(1 for c in letters if _script(c) == "LATIN")
    mostly_latin = bool(letters) and latin / len(letters) > 0.5
    return _WORD.sub(lambda m: _fold_word(m.group(0), mostly_latin, table), text)
