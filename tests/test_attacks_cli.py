"""``textleak attack`` end to end on a tiny TSV and a GloVe-format vector file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from textleak.cli import main
from textleak.word_embeddings import WordEmbeddings

WORDS = "the a movie film is was good bad great awful plot acting".split()


@pytest.fixture()
def files(tmp_path):
    rng = np.random.default_rng(0)
    vec = tmp_path / "vectors.txt"
    vec.write_text("".join(f"{w} " + " ".join(f"{v:.4f}" for v in rng.normal(size=5)) + "\n" for w in WORDS))
    tsv = tmp_path / "train.tsv"
    rows = [" ".join(rng.choice(WORDS, size=5)) for _ in range(40)]
    tsv.write_text("sentence\tlabel\n" + "".join(f"{r}\t{i % 2}\n" for i, r in enumerate(rows)))
    return vec, tsv


def test_word_vector_file_reader(files, tmp_path):
    vec, _ = files
    emb = WordEmbeddings.from_text_file(vec)
    assert emb.words == WORDS and emb.dim == 5
    fasttext = tmp_path / "ft.vec"
    fasttext.write_text("2 3\nx 1 2 3\ny 4 5 6\nbad line\n")
    ft = WordEmbeddings.from_text_file(fasttext)
    assert ft.words == ["x", "y"] and ft.vectors[1].tolist() == [4.0, 5.0, 6.0]
    assert WordEmbeddings.from_text_file(vec, vocabulary=["movie", "plot"]).words == ["movie", "plot"]


def test_attack_command_writes_a_table_per_epsilon(files, tmp_path, capsys):
    vec, tsv = files
    out = tmp_path / "res.json"
    code = main(["attack", "--data", str(tsv), "--column", "sentence", "--mechanism", "custext+",
                 "--mechanism-options", '{"top_k": 4, "stopwords": "none"}', "--embeddings", str(vec),
                 "--epsilons", "1", "8", "--attacks", "context_free_bayes", "embedding_inversion",
                 "--bounds", "context_free", "--out", str(out)])
    assert code == 0
    rows = json.loads(out.read_text())
    assert [r["epsilon"] for r in rows] == [1.0, 8.0]
    for r in rows:
        assert 0.0 <= r["asr"]["context_free_bayes"] <= 1.0
        assert r["n_tokens"] > 0
    # at a large epsilon the mechanism mostly keeps words, so inversion ("guess y") does better
    assert rows[1]["asr"]["embedding_inversion"] > rows[0]["asr"]["embedding_inversion"]
    printed = capsys.readouterr().out
    assert "| context_free bound |" in printed and "eps=8" in printed
    assert (tmp_path / "res.md").exists()


def test_attack_command_with_a_shadow_from_another_file(files, tmp_path):
    vec, tsv = files
    shadow = tmp_path / "shadow.txt"
    shadow.write_text("the plot was good\nthe acting was bad\n")
    out = tmp_path / "res.json"
    assert main(["attack", "--data", str(tsv), "--column", "sentence", "--shadow-data", str(shadow),
                 "--mechanism", "santext+", "--mechanism-options", '{"p": 0.0, "sensitive_fraction": 0.9}',
                 "--embeddings", str(vec), "--epsilons", "2", "--out", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["n_tokens"] > 0 and set(row["asr"]) == {"context_free_bayes", "embedding_inversion"}
