"""PresidioScrubber: exact scrubbing output, operators, offline model resolution, batching."""

from __future__ import annotations

import json
import re

import datasets
import pytest

from sanitizers import PresidioScrubber
from textleak.sanitize import presidio as scrubbing
from textleak.data.medqa import read_medqa_jsonl

pytestmark = pytest.mark.slow  # loads the spaCy model (once per process)

SENTENCE = "Call John Smith at john.smith@example.com, he lives in Boston and is 45 years of age."


def test_mask_replaces_every_character_of_each_span_with_a_star():
    out = PresidioScrubber(operator="mask")(SENTENCE)
    assert out["sanitize_status"] == "ok"
    masked = out["sanitized"]
    assert len(masked) == len(SENTENCE)
    assert masked == "Call ********** at **********************, he lives in ****** and is ***************."


def test_replace_operator_writes_entity_types():
    out = PresidioScrubber(operator="replace")(SENTENCE)["sanitized"]
    assert out == "Call <PERSON> at <EMAIL_ADDRESS>, he lives in <LOCATION> and is <AGE>."
    assert PresidioScrubber()(SENTENCE)["sanitized"] == out  # Presidio's own default operator (issue 28, item 5)


def test_entity_list_is_configurable():
    out = PresidioScrubber(operator="replace", entities=["PERSON"])(SENTENCE)["sanitized"]
    assert out == "Call <PERSON> at john.smith@example.com, he lives in Boston and is 45 years of age."
    with pytest.raises(ValueError, match="no recognizer"):
        PresidioScrubber(entities=["NOT_AN_ENTITY"])("x y")


def test_hash_operator_is_deterministic_across_records():
    texts = ["John Smith called.", "Later John Smith called again."]
    out = PresidioScrubber(operator="hash", entities=["PERSON"])(texts, [0, 1])["sanitized"]
    digests = [re.findall(r"[0-9a-f]{64}", t) for t in out]
    assert len(digests[0]) == 1 and digests[0] == digests[1]
    assert "John" not in out[0]


def test_fake_operator_is_seeded_per_record():
    pytest.importorskip("faker")
    scrub = PresidioScrubber(operator="fake", entities=["PERSON", "LOCATION"])
    a = scrub([SENTENCE, SENTENCE], [0, 1])["sanitized"]
    b = scrub([SENTENCE], [1])["sanitized"]
    assert a[1] == b[0]  # same index, same fake values, whatever the batch
    assert a[0] != a[1]  # another index, other values
    assert "John Smith" not in a[0] and "Boston" not in a[0]


def test_input_policy_empty_and_too_long():
    out = PresidioScrubber(max_chars=50)(["", "  ", "x" * 51, "Bob went home."], [0, 1, 2, 3])
    assert out["sanitize_status"] == ["empty_input", "empty_input", "too_long", "ok"]
    assert out["sanitized"][:3] == ["", "", None]


def test_unknown_spacy_model_is_a_clear_error_and_nothing_is_downloaded(monkeypatch):
    import spacy.cli

    monkeypatch.setattr(spacy.cli, "download", lambda *a, **k: pytest.fail("tried to download a spaCy model"))
    with pytest.raises(scrubbing.SpacyModelNotFound, match="not installed"):
        scrubbing.resolve_spacy_model("en_core_web_nonexistent")
    assert scrubbing.resolve_spacy_model() in scrubbing.SPACY_MODEL_PREFERENCE
    engine = scrubbing.PresidioEngine(entities=["PERSON"]).load()  # no download attempt either
    assert engine.model_name == scrubbing.resolve_spacy_model()


def test_email_recognizer_does_not_use_the_network(monkeypatch, tmp_path):
    import socket

    monkeypatch.setattr(socket.socket, "connect", lambda *a, **k: pytest.fail("a recognizer opened a connection"))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: pytest.fail("a recognizer resolved a host name"))
    monkeypatch.setenv("TLDEXTRACT_CACHE", str(tmp_path))  # no cached suffix list to hide a fetch
    engine = scrubbing.PresidioEngine(entities=["EMAIL_ADDRESS"]).load()
    spans = engine.analyze(["write to jane.doe@example.org today"])[0]
    assert [(s.start, s.end, s.entity_type) for s in spans] == [(9, 29, "EMAIL_ADDRESS")]


def test_batched_and_one_at_a_time_agree_on_medqa(shared_data):
    records = list(read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"))[:12]
    texts = [r["text"] for r in records]
    scrub = PresidioScrubber(operator="mask")  # offsets kept, so ages can be checked in place
    seeds = list(range(len(texts)))
    batched = scrub.sanitize_batch(texts, seeds)
    single = scrub.sanitize_one_at_a_time(texts, seeds)
    assert [r.text for r in batched] == [r.text for r in single]
    # ages are the first quasi-identifier of a vignette: every "NN-year-old" is scrubbed
    for original, result in zip(texts, batched):
        for m in re.finditer(r"\b\d{1,3}-year-old\b", original):
            assert result.text[m.start():m.end()] == "*" * len(m.group())


def test_map_with_two_processes_matches_one():
    ds = datasets.Dataset.from_dict({"text": [SENTENCE, "Mary Jones from Paris.", "", "No names here."] * 2})
    kw = dict(batched=True, input_columns="text", with_indices=True, load_from_cache_file=False)
    one = ds.map(PresidioScrubber(operator="replace"), batch_size=3, **kw)
    two = ds.map(PresidioScrubber(operator="replace"), batch_size=2, num_proc=2, **kw)
    assert one["sanitized"] == two["sanitized"]
    assert one["sanitized"][1] == "<PERSON> from <LOCATION>."
    assert one["text"] == ds["text"]


def test_options_are_declared_once_in_a_presidio_config():
    """The scrubber, the engine and the shared-engine cache build from one PresidioConfig: equal settings,
    written as lists or tuples, recognizer objects or their dicts, give one key (one loaded engine)."""
    from presidio_analyzer import Pattern, PatternRecognizer

    from textleak.sanitize.presidio import PresidioConfig, PresidioEngine, shared_engine

    rec = PatternRecognizer(supported_entity="TICKET", patterns=[Pattern("ticket", r"TCK-\d{4}", 0.9)])
    a = PresidioConfig(entities=["PERSON", "TICKET"], recognizers=[rec], entity_thresholds={"PERSON": 0.5})
    b = PresidioConfig(entities=("PERSON", "TICKET"), recognizers=(rec.to_dict(),), entity_thresholds={"PERSON": 0.5})
    assert a.key() == b.key() and a.key() != PresidioConfig(entities=["PERSON"]).key()
    assert shared_engine(a) is shared_engine(b)
    assert PresidioScrubber(entities=["PERSON", "TICKET"], recognizers=[rec],
                            entity_thresholds={"PERSON": 0.5}).presidio.key() == a.key()
    with pytest.raises(TypeError, match="not both"):
        PresidioEngine(a, entities=["PERSON"])


def test_the_scrubbers_outputs_are_cached_under_its_settings():
    """run_sanitizer caches by content_hash(sanitizer state); the state holds a PresidioConfig, which must
    hash (it did not, and every Presidio run was recomputed with 'state that cannot be hashed')."""
    from textleak.cache import content_hash

    a, b = PresidioScrubber().__getstate__(), PresidioScrubber(entities=["PERSON"]).__getstate__()
    assert content_hash("sanitized", a, 0, "x") == content_hash("sanitized", PresidioScrubber().__getstate__(), 0, "x")
    assert content_hash("sanitized", a, 0, "x") != content_hash("sanitized", b, 0, "x")
