"""The NLI judge's work outside the model forward is done once per text or in numpy (issue 29), and gives
exactly what the per-pair Python gave: padding, the verbatim shortcut's sentence search, the language
guess's letter count."""

from __future__ import annotations

import pytest

from textleak.judges.nli import _in_voice, _text_facts, in_claim_voice, states_claim, stating_sentence
from textleak.text.language import _MAX_LETTERS, char_script, detect_language


def _first_stating(claim: str, sentences: list[str], voice: bool) -> str | None:
    """The shortcut as it was written: every sentence through in_claim_voice, then states_claim."""
    return next((s for s in sentences if states_claim(claim, in_claim_voice(claim, s) if voice else s)), None)


@pytest.mark.parametrize("claim, sentences, voiced, plain", [
    ("The writer has attached their resume.", ["Dear team,", "I have attached my resume.", "Thanks."], "I have attached my resume.", None),
    ("The patient is 45 years old.", ["A 45-year-old man has a cough.", "The patient is 45 years old and well."],
     "A 45-year-old man has a cough.", "A 45-year-old man has a cough."),
    ("The patient has no fever.", ["The patient has a fever.", "He has no fever today."], "He has no fever today.", "He has no fever today."),
    ("The user lives in Leeds.", ["I live in York.", "She lives in Leeds."], "She lives in Leeds.", "She lives in Leeds."),
    ("The patient takes aspirin daily.", [], None, None),
])
def test_stating_sentence_is_the_first_sentence_that_states_the_claim(claim, sentences, voiced, plain):
    """Pinned outputs (states_claim is stating_sentence on one sentence, so comparing the two would prove
    nothing); with the voice on, it is also the first sentence that states it once put in the claim's voice."""
    assert stating_sentence(claim, sentences, True) == voiced == _first_stating(claim, sentences, True)
    assert stating_sentence(claim, sentences, False) == plain


def test_stating_sentence_reads_first_person_in_the_claims_voice():
    claim, sentences = "The writer has attached their resume.", ["Dear team,", "I have attached my resume."]
    assert stating_sentence(claim, sentences, True) == "I have attached my resume."
    assert stating_sentence(claim, sentences, False) is None
    _text_facts.cache_clear()
    _in_voice.cache_clear()
    assert stating_sentence(claim, sentences, True) == "I have attached my resume."  # the same from cold caches


def _letter_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    seen = 0
    for ch in text:
        if ch.isalpha():
            counts[char_script(ch)] = counts.get(char_script(ch), 0) + 1
            seen += 1
            if seen >= _MAX_LETTERS:
                break
    return counts


@pytest.mark.parametrize("text", ["Привет мир hello world", "hello мир", "ab вг", "вг ab", "Le patient a 45 ans. Température 38 °C.",
                                  "東京 tokyo", "2024-01-01 °", "Zoë " * 900 + "мир " * 200])
def test_detect_language_counts_every_letter_as_the_letter_loop_did(text):
    counts = _letter_counts(text)
    script = max(counts, key=lambda s: (counts[s], s == "latin")) if counts else "none"
    assert detect_language(text).script == script
    if counts:
        assert detect_language(text).non_latin_share == pytest.approx(1.0 - counts.get("latin", 0) / sum(counts.values()), abs=0)


def test_pad_is_the_tokenizers_padding():
    torch = pytest.importorskip("torch")
    from textleak.judges.nli import load_nli_model

    model = load_nli_model(None, False, None, "float32")
    pairs = [("The patient is 45 years old.", "A 45-year-old man presents with chest pain. " * k) for k in range(1, 30)] + [("x", "y")]
    encoded = model.tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation="longest_first", max_length=model.max_length)
    lengths = [len(ids) for ids in encoded["input_ids"]]
    inputs = model.inputs.pairs(pairs)
    assert model.inputs.fast and inputs["input_ids"] == encoded["input_ids"]
    for idx in (list(range(len(pairs))), [len(pairs) - 1, 0, 5], [3]):
        ours = model._pad(inputs, idx, lengths)
        theirs = model.tokenizer.pad({k: [v[i] for i in idx] for k, v in encoded.items()}, return_tensors="pt")
        assert set(ours) == set(theirs)
        for key in theirs:
            assert ours[key].dtype == theirs[key].dtype and torch.equal(ours[key], theirs[key]), key
