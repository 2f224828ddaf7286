"""Short refusals that the shared classifier must catch: the old sanitizer pattern caught them by their
apology, and a missed one is released as a "sanitized" record that leaks nothing (privacy inflated)."""

import pytest

from textleak.llm.refusals import is_refusal
from textleak.sanitize.llm import STATUS_REFUSAL, resolve_paraphrase_answer

BARE = [
    "I'm sorry, I can't.",
    "Sorry — I can't.",
    "No, I will not.",
    "I’m sorry, but I won’t.",
    "I apologize, but I won't be anonymizing this text.",
    "I will not be providing an anonymized version.",
]


@pytest.mark.parametrize("text", BARE)
def test_bare_refusals_are_recognised(text):
    assert is_refusal(text)


@pytest.mark.parametrize("text", BARE)
def test_a_bare_refusal_is_never_a_paraphrase(text):
    assert resolve_paraphrase_answer(text).status == STATUS_REFUSAL


@pytest.mark.parametrize("text", [
    "The patient cannot be evaluated today.",
    "I can't wait to see my sister in Lyon next week.",
    "I will not be at the meeting on Friday.",
])
def test_records_that_are_not_refusals(text):
    assert not is_refusal(text)
