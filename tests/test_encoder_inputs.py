"""EncoderInputs gives the tokenizer's own ids, token types and offsets (issue 29): each distinct text is
tokenised once and the template added from a probe, and texts and pairs past ``max_length`` go through the
tokenizer's truncation, so nothing a model reads changes."""

from __future__ import annotations

import random

import pytest

from textleak.encoder_inputs import EncoderInputs, pad_rows, unpadded

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from textleak.encoders import default_encoder_path

    return AutoTokenizer.from_pretrained(default_encoder_path())


def _texts() -> list[str]:
    rng = random.Random(7)
    words = "the patient is 45 years old héllo wörld ‮reversed naïve café 38.5°C user@example.com /home/rickard/x.py Привет 東京".split()
    texts = [" ".join(rng.choice(words) for _ in range(n)) for n in (0, 1, 2, 5, 9, 30, 60, 61, 62, 63, 64, 120, 126, 127, 128, 300)]
    return texts + ["", " ", "a" * 900, "x\u200by", "tab\tand\nnewline"]


@pytest.mark.parametrize("max_length", [128, 17, 256])
def test_pairs_are_the_tokenizers_pairs(tokenizer, max_length):
    texts = _texts()
    rng = random.Random(max_length)
    pairs = [(rng.choice(texts), rng.choice(texts)) for _ in range(400)] + [(t, t) for t in texts]
    inputs = EncoderInputs(tokenizer, max_length)
    assert inputs.fast
    want = tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation="longest_first", max_length=max_length)
    got = inputs.pairs(pairs)
    assert sum(len(r) == max_length for r in want["input_ids"]) > 20  # truncation is exercised
    assert got["input_ids"] == want["input_ids"]
    assert got["token_type_ids"] == want["token_type_ids"]


@pytest.mark.parametrize("max_length", [128, 17])
def test_texts_are_the_tokenizers_texts_with_offsets(tokenizer, max_length):
    texts = _texts()
    want = tokenizer(texts, truncation=True, max_length=max_length, return_offsets_mapping=True)
    got = EncoderInputs(tokenizer, max_length).texts(texts, offsets=True)
    assert got["input_ids"] == want["input_ids"]
    assert got["token_type_ids"] == want["token_type_ids"]
    assert got["offset_mapping"] == [list(map(tuple, row)) for row in want["offset_mapping"]]


def test_a_tokenizer_it_cannot_template_is_called(tokenizer):
    """Left truncation is not the probe's: the tokenizer itself is called, with the same result."""
    from transformers import AutoTokenizer

    from textleak.encoders import default_encoder_path

    left = AutoTokenizer.from_pretrained(default_encoder_path(), truncation_side="left")
    inputs = EncoderInputs(left, 12)
    assert not inputs.fast
    pairs = [("a b c d e f g h", "i j k l m n o p"), ("x", "y")]
    assert inputs.pairs(pairs)["input_ids"] == left([a for a, _ in pairs], [b for _, b in pairs], truncation="longest_first", max_length=12)["input_ids"]


def test_pad_rows():
    assert pad_rows([[1, 2, 3], [4]], 0).tolist() == [[1, 2, 3], [4, 0, 0]]
    assert pad_rows([[1]], 9, width=3).tolist() == [[1, 9, 9]]


def test_encode_is_the_models_own_encode():
    """The mean-pooling encoder run here (each text tokenised once, pooled in float32) gives the vectors
    sentence-transformers gives; a model pooled otherwise goes through its own ``encode``."""
    import numpy as np

    from textleak.encoders import _mean_pooled, encode, encode_word_windows, load_sentence_encoder

    model = load_sentence_encoder(None, None, "float32")
    assert _mean_pooled(model)
    texts = _texts()[:12] + ["The patient is 45 years old and has a cough."]
    theirs = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(encode(texts, model, batch_size=4), theirs, atol=2e-6)
    np.testing.assert_allclose(encode_word_windows(texts, model, 8, 4, 4).sentence_vectors[:len(texts)], theirs, atol=2e-6)

    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Pooling, Transformer

    from textleak.encoders import default_encoder_path

    first = Transformer(default_encoder_path())
    cls = SentenceTransformer(modules=[first, Pooling(first.get_word_embedding_dimension(), "cls")], device="cpu")
    assert not _mean_pooled(cls)
    np.testing.assert_allclose(encode(texts, cls), cls.encode(texts, normalize_embeddings=True, convert_to_numpy=True), atol=1e-6)


def test_a_batch_without_padding_drops_its_mask_and_reads_the_same():
    """unpadded: a batch whose rows are all as long as the longest needs no attention mask (the model then builds
    none); with padding the mask stays. The cross-encoder's states are the same either way, in float32 and bfloat16."""
    import torch

    from textleak.judges.nli import load_nli_model

    ones = {"input_ids": torch.ones(2, 3, dtype=torch.long), "attention_mask": torch.ones(2, 3, dtype=torch.long)}
    assert "attention_mask" not in unpadded(ones) and "input_ids" in unpadded(ones)
    padded = {"input_ids": torch.ones(2, 3, dtype=torch.long), "attention_mask": torch.tensor([[1, 1, 1], [1, 1, 0]])}
    assert torch.equal(unpadded(padded)["attention_mask"], padded["attention_mask"])
    for dtype in ("float32", "bfloat16"):
        model = load_nli_model(None, dtype == "float32", "cpu", dtype)
        encoded = model.inputs.pairs([("The patient is 45 years old.", "A 45-year-old man comes in."),
                                      ("Her pulse is 88/min.", "Pulse is 88/min today and steady.")])
        lengths = [len(ids) for ids in encoded["input_ids"]]
        batch = model._pad(encoded, [0, 0], lengths)  # one pair twice: no padding
        with torch.inference_mode():
            masked = model.model(**batch).last_hidden_state
            unmasked = model.model(**unpadded(batch)).last_hidden_state
        assert "attention_mask" not in unpadded(batch)
        assert torch.equal(masked, unmasked)
