"""The word-DP sanitizers as datasets.map transforms: seeds, hashing, alignment column."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from datasets import Dataset
from datasets.fingerprint import Hasher

from sanitizers import CusTextPlus, SanText, SanTextPlus
from textleak.word_embeddings import WordEmbeddings

WORDS = "the a movie film is was good bad great awful plot acting".split()


@pytest.fixture(scope="module")
def emb():
    return WordEmbeddings(WORDS, np.random.default_rng(1).normal(size=(len(WORDS), 4)))


def texts():
    rng = np.random.default_rng(0)
    return [" ".join(rng.choice(WORDS, size=6)) + " ." for _ in range(40)]


@pytest.mark.parametrize("cls", [SanTextPlus, CusTextPlus])
def test_map_is_independent_of_batch_size_and_num_proc(emb, cls):
    san = cls(epsilon=1.0, embeddings=emb, alignment_column="private_word_alignment").fit(texts())
    ds = Dataset.from_dict({"text": texts()})
    kw = dict(batched=True, input_columns="text", with_indices=True, load_from_cache_file=False)
    a = ds.map(san, batch_size=1, **kw)
    b = ds.map(san, batch_size=16, num_proc=2, **kw)
    assert a["sanitized"] == b["sanitized"]
    assert a["private_word_alignment"] == b["private_word_alignment"]
    assert a["sanitized"] != ds["text"]  # something was sanitized
    row = a[3]["private_word_alignment"]
    assert [t["original"] for t in row] == ds[3]["text"].split()
    assert " ".join(t["sanitized"] for t in row) == a[3]["sanitized"]


def test_fingerprint_is_stable_and_follows_config(emb):
    san = SanTextPlus(epsilon=2.0, embeddings=emb).fit(texts())
    clone = pickle.loads(pickle.dumps(san))
    assert Hasher.hash(san) == Hasher.hash(clone)
    assert Hasher.hash(san) != Hasher.hash(SanTextPlus(epsilon=2.5, embeddings=emb).fit(texts()))
    assert Hasher.hash(san) != Hasher.hash(SanTextPlus(epsilon=2.0, embeddings=emb).fit(texts()[:10]))
    # a loaded-by-spec embedding pickles as its spec, not as its matrix
    assert len(pickle.dumps(SanTextPlus(embeddings="default"))) < 2000


def test_unfitted_santext_fails_with_a_clear_error(emb):
    with pytest.raises(ValueError, match="fit"):
        SanTextPlus(embeddings=emb)("the movie")


def test_santext_plain_perturbs_every_embedded_word(emb):
    san = SanText(epsilon=0.01, embeddings=emb, alignment_column="private_word_alignment").fit(texts())
    out = san(texts()[0], 0)
    assert all(t["sensitive"] for t in out["private_word_alignment"] if t["original"] in WORDS)


def test_same_seed_same_output_and_seed_changes_it(emb):
    a = SanTextPlus(epsilon=1.0, embeddings=emb, seed=1).fit(texts())
    b = SanTextPlus(epsilon=1.0, embeddings=emb, seed=2).fit(texts())
    out1 = a(texts(), list(range(40)))["sanitized"]
    assert out1 == a(texts(), list(range(40)))["sanitized"]
    assert out1 != b(texts(), list(range(40)))["sanitized"]


def test_empty_records_follow_the_shared_input_policy(emb):
    san = SanTextPlus(epsilon=1.0, embeddings=emb, alignment_column="private_word_alignment").fit(texts())
    out = san(["", "  ", "the movie"], [0, 1, 2])
    assert out["sanitize_status"] == ["empty_input", "empty_input", "ok"]
    assert out["sanitized"][:2] == ["", ""] and out["private_word_alignment"][:2] == [[], []]
    assert len(out["private_word_alignment"][2]) == 2
    with pytest.raises(TypeError, match="record 1"):
        san(["ok", None], [0, 1])
