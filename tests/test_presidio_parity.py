"""Presidio as its users know it (issue 28, item 5): Presidio's default operator, its operators dict,
a user's own engines and configurations, fingerprints of those, and units/abbreviations kept."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("presidio_analyzer")
from datasets.fingerprint import Hasher  # noqa: E402
from presidio_analyzer import AnalyzerEngine, PatternRecognizer, RecognizerRegistry  # noqa: E402
from presidio_anonymizer.entities import OperatorConfig  # noqa: E402

from sanitizers import PresidioScrubber  # noqa: E402
from textleak.sanitize.presidio import shared_engine  # noqa: E402

pytestmark = pytest.mark.slow  # loads the spaCy model (once per process)

SENTENCE = "Call John Smith tomorrow, he lives in Boston and is 45 years of age."


def _zorblax() -> PatternRecognizer:
    return PatternRecognizer(supported_entity="PERSON", name="Zorblax", deny_list=["Zorblax"])


def _user_analyzer(recognizer: PatternRecognizer) -> AnalyzerEngine:
    """An AnalyzerEngine as a Presidio user builds one (our loaded spaCy engine, so nothing downloads)."""
    registry = RecognizerRegistry(supported_languages=["en"])
    registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=shared_engine()._analyzer.nlp_engine, supported_languages=["en"])


def test_default_operator_is_presidios_replace_and_mask_stays_an_option():
    assert PresidioScrubber()(SENTENCE)["sanitized"] == "Call <PERSON> <DATE_TIME>, he lives in <LOCATION> and is <AGE>."
    assert PresidioScrubber(operator="mask")(SENTENCE)["sanitized"].startswith("Call ********** ********,")


def test_operators_dict_of_operator_configs():
    ops = {"PERSON": OperatorConfig("replace", {"new_value": "[name]"}), "DEFAULT": OperatorConfig("redact", {})}
    out = PresidioScrubber(operators=ops)(SENTENCE)["sanitized"]
    assert out == "Call [name] , he lives in  and is ."
    # the same operators written as plain dicts fingerprint the same, so datasets.map reuses its cache
    plain = {"PERSON": {"operator_name": "replace", "params": {"new_value": "[name]"}}, "DEFAULT": {"type": "redact"}}
    assert Hasher.hash(PresidioScrubber(operators=plain)) == Hasher.hash(PresidioScrubber(operators=ops))
    assert Hasher.hash(PresidioScrubber(operators=ops)) != Hasher.hash(PresidioScrubber())


def test_units_and_abbreviations_are_not_scrubbed_by_configuration():
    texts = ["Noise of 80 dB and an AI model, ECG normal.", "The amplifier gain is 20 dB and the noise floor is -90 dB.",
             "I want to learn AI and ML this summer."]
    raw = PresidioScrubber(allow_list=())(texts)["sanitized"]
    assert "AI" not in raw[0] and "dB." not in raw[1] and "ML" not in raw[2]  # the small spaCy model's mistakes
    out = PresidioScrubber()(texts)["sanitized"]
    assert out[0] == texts[0] and out[1] == texts[1]
    assert out[2] == "I want to learn AI and ML <DATE_TIME>."  # a real detection next to them still goes
    # or per entity: organisations only when the model is very sure
    strict = PresidioScrubber(allow_list=(), entity_thresholds={"ORGANIZATION": 0.9, "LOCATION": 0.9})(texts)["sanitized"]
    assert strict[1] == texts[1] and "AI" in strict[2]


def test_a_users_own_analyzer_engine_is_used_as_it_is():
    scrub = PresidioScrubber(analyzer=_user_analyzer(_zorblax()))
    assert scrub("Zorblax met John Smith in Boston.")["sanitized"] == "<PERSON> met John Smith in Boston."


def test_engine_objects_fingerprint_by_their_configuration_and_do_not_travel():
    a = Hasher.hash(PresidioScrubber(analyzer=_user_analyzer(_zorblax())))
    assert a == Hasher.hash(PresidioScrubber(analyzer=_user_analyzer(_zorblax())))  # equal engines, equal fingerprints
    other = PatternRecognizer(supported_entity="PERSON", name="Zorblax", deny_list=["Quux"])
    assert a != Hasher.hash(PresidioScrubber(analyzer=_user_analyzer(other)))
    copy = pickle.loads(pickle.dumps(PresidioScrubber(analyzer=_user_analyzer(_zorblax()))))
    with pytest.raises(RuntimeError, match="pass the configurations instead"):
        copy("Zorblax")


def test_recognizers_and_nlp_configuration_as_configs():
    by_object = PresidioScrubber(recognizers=[_zorblax()])
    by_dict = PresidioScrubber(recognizers=[_zorblax().to_dict()])
    assert Hasher.hash(by_object) == Hasher.hash(by_dict)
    assert by_dict("Zorblax arrived.")["sanitized"] == "<PERSON> arrived."
    assert pickle.loads(pickle.dumps(by_dict))("Zorblax arrived.")["sanitized"] == "<PERSON> arrived."
    # Presidio's NLP engine configuration: a mapping without ORG leaves organisations alone
    conf = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": shared_engine().model_name}],
            "ner_model_configuration": {"model_to_presidio_entity_mapping": {"PERSON": "PERSON", "GPE": "LOCATION"},
                                        "labels_to_ignore": ["ORG"]}}
    text = "John Smith works at Microsoft in Boston."
    assert "Microsoft" not in PresidioScrubber()(text)["sanitized"]
    assert PresidioScrubber(nlp_configuration=conf)(text)["sanitized"] == "<PERSON> works at Microsoft in <LOCATION>."
