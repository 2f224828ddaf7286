"""The verbatim shortcut reads a sentence's polarity over a positive claim's own words (rules 2026-11-29.4): a negation
elsewhere in the sentence ("..., with no bleeding") does not stop "She takes warfarin" from being stated, while a
negation whose scope covers a claim word ("does not take warfarin", "antibodies negative", "Chest pain: none") still
does. A negated claim keeps the whole sentence's polarity: a scope the cue lists miss must never lose it the shortcut."""

from __future__ import annotations

import pytest

from textleak.judges.nli import stating_sentence
from textleak.judges.values import negates_words
from textleak.text import rouge_tokens

STATED = [
    ("The patient takes warfarin.", "She takes warfarin 7.5 mg daily and feels well, with no bleeding."),
    ("The rash began on her wrists and ankles.", "The rash began on her wrists and ankles and has spread to her trunk; it is not pruritic."),
    ("The user had a hip replacement in January.", "I had a hip replacement in January, so I can't walk more than 3 km a day."),
    ("The user's husband works night shifts as a paramedic.",
     "My husband Mark is a paramedic in Manchester who works night shifts, so I can't rely on him for lifts."),
    ("The patient does not smoke.", "He does not smoke and drinks rarely."),  # a negated claim, negated where its words are
    # negated claims keep the whole sentence's polarity, however the negation is written
    ("The user does not have a driving licence.", "I do not, and never did, have a driving licence."),
    ("The pregnancy test was negative.", "Pregnancy test: negative."),
    ("The patient is ANA negative.", "ANA-negative on repeat testing."),
    ("The patient does not smoke.", "He does not drink but smokes daily."),  # known limit: the drinking's negation counts
]
NOT_STATED = [
    ("The patient takes warfarin.", "She does not take warfarin."),
    ("She has anti-dsDNA antibodies.", "ANA 1:640 homogeneous; anti-dsDNA antibodies negative; C3 elevated."),
    ("The patient has chest pain.", "He denies chest pain at rest."),
    ("The patient has pain.", "She is free of pain today."),
    # the review's cases (2026-11-29): a negation the sentence check saw, written where the first scope rules missed it
    ("The patient has a hip fracture.", "A hip fracture was ruled out; no further imaging is needed."),
    ("The patient has chest pain.", "Chest pain: none. Palpitations: none."),
    ("The patient has chest pain.", "Chest pain: not present."),
    ("The patient uses insulin.", "She fails to use insulin and has no glucose meter."),
    ("The patient takes warfarin.", "She does 'not' take warfarin."),
    ("The patient takes warfarin.", "She stopped taking warfarin and has had no bleeding since."),
    ("The patient has pedal pulses.", "Examination shows absent pedal pulses, no edema."),
    ("The patient can walk unaided.", "She can’t walk unaided."),  # a curly apostrophe is a negation too
]


@pytest.mark.parametrize("claim,sentence", STATED)
def test_a_negation_outside_the_claims_words_does_not_block_the_shortcut(claim, sentence):
    assert stating_sentence(claim, [sentence]) == sentence  # read in the claim's voice, as the judge reads it


@pytest.mark.parametrize("claim,sentence", NOT_STATED)
def test_a_negation_over_the_claims_words_blocks_it(claim, sentence):
    assert stating_sentence(claim, [sentence]) is None


def test_scopes_stop_at_punctuation_and_clause_words():
    stems = frozenset(rouge_tokens("warfarin"))
    assert negates_words("She takes no aspirin or warfarin.", stems)  # within six words after the cue
    assert not negates_words("She takes no aspirin, and warfarin daily.", stems)  # the comma ends the scope
    assert not negates_words("Not much has changed for her over the years, warfarin daily.", stems)
    assert negates_words("Warfarin was denied.", stems)  # a cue after the word: "denied", "negative", "absent"
    assert not negates_words("Warfarin, she said, was denied", stems)
