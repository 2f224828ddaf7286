"""Negation cues, in one place: the judges' polarity checks (:mod:`textleak.judges.values`, the NLI head's
polarity feature) and the layout reader's headings (:mod:`textleak.text.layout`) read the same list."""

from __future__ import annotations

import re

# a claim and a sentence that both negate, in any wording, agree in polarity; "no" before a number is the
# number sign ("report no. 24-318877"), not a negation
NEGATION = re.compile(r"\b(?:no(?!\.?\s*#?\d)|not|never|none|nothing|nobody|neither|nor|without|denies|denied|deny|denying|negative|absent|"
                      r"cannot|free of|unremarkable)\b|n['’]t\b", re.IGNORECASE)
