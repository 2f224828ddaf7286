"""Fail toward leakage, round two: the file, CLI and id paths (issue 27, items 1-4 and 11-14).

Each case: what a user or an adversary does, the honest figure, and the assertion that privacy does
not rise above it, or that the run stops with one clear line. The numbers measured before the fixes
are in the docstrings; every case here failed (silently, or with an unclear error) before.
"""

from __future__ import annotations

import json
import logging
import sqlite3

import numpy as np
import pytest

from textleak.cli import main
from textleak.leakage import evaluate_leakage

from _profiles import LEXICAL, RECORDS, error_line as _error_line, write_jsonl as _jsonl  # the eight synthetic profiles of the adversarial suite



def _evaluate(tmp_path, *args, out="out"):
    """(exit status, the single result row or None)."""
    code = main(["evaluate", *args, *LEXICAL, "--output", str(tmp_path / out)])
    report = tmp_path / out / "report.json"
    rows = json.loads(report.read_text())["results"] if code == 0 and report.exists() else [None]
    return code, rows[0]



@pytest.fixture
def originals(tmp_path):
    return _jsonl(tmp_path / "a.jsonl", [{"id": f"r{i}", "text": t} for i, t in enumerate(RECORDS)])


@pytest.fixture
def identity_privacy(tmp_path, originals):
    code, row = _evaluate(tmp_path, "--originals", originals, "--sanitized", originals, out="identity")
    assert code == 0
    return row["semantic_privacy"]


# ---- 1. the README's chain measures the sanitized column, and says when "sanitized" is the original ----------
def test_sanitize_then_evaluate_reads_the_column_the_sanitizer_wrote(tmp_path, originals, identity_privacy):
    """Before: b.jsonl's 'text' (the original) was read: Presidio's 0.194 read as 0.031, with no warning."""
    sanitized = str(tmp_path / "b.jsonl")
    assert main(["sanitize", "--sanitizer", "remove_all", "--input", originals, "--output", sanitized]) == 0
    code, row = _evaluate(tmp_path, "--originals", originals, "--sanitized", sanitized)
    code_explicit, explicit = _evaluate(tmp_path, "--originals", originals, "--sanitized", sanitized,
                                        "--sanitized-column", "sanitized", out="explicit")
    assert code == code_explicit == 0
    assert row["semantic_privacy"] == explicit["semantic_privacy"] == 1.0 > identity_privacy


def test_sanitized_records_equal_to_their_originals_are_warned_by_id(caplog):
    released = [t if i in (1, 4) else "" for i, t in enumerate(RECORDS)]
    with caplog.at_level(logging.WARNING, logger="textleak.leakage.inputs"):
        evaluate_leakage(RECORDS, released, judge="lexical", bootstrap=0, use_cache=False,
                         original_ids=[f"r{i}" for i in range(8)])
    (message,) = [r.getMessage() for r in caplog.records if "identical to their originals" in r.getMessage()]
    assert message.startswith("2 of 8") and "'r1', 'r4'" in message


# ---- 2. private columns are opt-in and named as private ---------------------------------------------------
TOY_WORDS = ["anna", "boris", "is", "a", "cook", "pilot", "old", "years"]


@pytest.fixture
def toy_vectors(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "vectors.txt"
    path.write_text("".join(w + " " + " ".join(f"{x:.3f}" for x in rng.normal(size=4)) + "\n" for w in TOY_WORDS))
    return str(path)


@pytest.mark.parametrize("name", ["santext+", "santext", "custext+", "custext"])
def test_word_dp_sanitizers_release_no_column_of_original_words(name, toy_vectors):
    """Before: SANTEXT+'s map added word_alignment, every original word beside the sanitized text."""
    from textleak.sanitize import create_sanitizer

    texts = ["anna is a cook", "boris is a pilot"]
    san = create_sanitizer(name, embeddings=toy_vectors).fit(texts)
    assert set(san(texts, [0, 1])) == {"sanitized", "sanitize_status"}
    with pytest.raises(ValueError, match="private"):
        create_sanitizer(name, embeddings=toy_vectors, alignment_column="word_alignment")
    asked = create_sanitizer(name, embeddings=toy_vectors, alignment_column="private_word_alignment").fit(texts)
    assert [t["original"] for t in asked(texts, [0, 1])["private_word_alignment"][0]] == texts[0].split()


@pytest.mark.parametrize("name", ["identity", "remove_all", "numbers_changed"])
def test_record_sanitizers_write_only_their_two_columns(name):
    from textleak.sanitize import create_sanitizer

    assert set(create_sanitizer(name)(RECORDS[:2], [0, 1])) == {"sanitized", "sanitize_status"}


def test_sanitize_cli_writes_no_alignment_and_fits_santext_on_its_input(tmp_path, toy_vectors):
    """Item 13 too: before, `textleak sanitize --sanitizer santext+` said "call .fit(corpus_texts)"."""
    src = _jsonl(tmp_path / "in.jsonl", [{"text": "anna is a cook"}, {"text": "boris is a pilot"}])
    out = tmp_path / "out.jsonl"
    assert main(["sanitize", "--sanitizer", "santext+", "--input", src, "--output", str(out),
                 "--option", f"embeddings={toy_vectors}"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert set(rows[0]) == {"text", "sanitized", "sanitize_status"}


# ---- 3. row numbers are not ids ----------------------------------------------------------------------------
@pytest.mark.parametrize("dropped", [[1], [1, 3, 5, 7]])
def test_a_sanitized_file_without_ids_and_with_rows_missing_is_refused(tmp_path, capsys, originals, dropped):
    """Before: row numbers were taken for ids, every later row shifted: 0.025 -> 0.148 (1 of 8 dropped),
    0.268 (4 of 8), exit 0."""
    partial = _jsonl(tmp_path / "s.jsonl", [{"text": t} for i, t in enumerate(RECORDS) if i not in dropped])
    code, _ = _evaluate(tmp_path, "--originals", originals, "--sanitized", partial)
    line = _error_line(capsys)
    assert code == 2 and "s.jsonl" in line and "row numbers are not ids" in line and "pair one-to-one" in line
    # item 13: the CLI names its flags, not the API's arguments
    assert "--source-id-column" in line and "--alignment none" in line and "sanitized_ids" not in line


def test_originals_without_ids_and_a_shorter_sanitized_file_are_refused(tmp_path, capsys):
    plain = _jsonl(tmp_path / "a.jsonl", [{"text": t} for t in RECORDS])
    partial = _jsonl(tmp_path / "s.jsonl", [{"text": t} for t in RECORDS[1:]])
    code, _ = _evaluate(tmp_path, "--originals", plain, "--sanitized", partial)
    assert code == 2 and "row numbers are not ids" in _error_line(capsys)


def test_reordered_rows_with_ids_pair_by_id(tmp_path, originals, identity_privacy):
    """Before: same size, so rows paired by position and the ids were ignored (linkage rate 0)."""
    shuffled = _jsonl(tmp_path / "s.jsonl", [{"id": f"r{i}", "text": RECORDS[i]} for i in reversed(range(8))])
    code, row = _evaluate(tmp_path, "--originals", originals, "--sanitized", shuffled)
    assert code == 0 and row["linkage_rate"] == 1.0 and row["semantic_privacy"] == identity_privacy


def test_partial_file_with_ids_counts_the_missing_as_released(tmp_path, originals, identity_privacy):
    partial = _jsonl(tmp_path / "s.jsonl", [{"id": f"r{i}", "text": RECORDS[i]} for i in range(0, 8, 2)])
    code, row = _evaluate(tmp_path, "--originals", originals, "--sanitized", partial)
    assert code == 0 and row["n_missing"] == 4 and row["semantic_privacy"] <= identity_privacy + 1e-9


# ---- 4. unaligned mode is for synthetic data ---------------------------------------------------------------
def test_alignment_none_on_a_sanitized_file_with_ids_is_refused(tmp_path, capsys, originals):
    """Before: --alignment none (the way out the size error offered) took 0.025 -> 0.301 with no warning."""
    partial = _jsonl(tmp_path / "s.jsonl", [{"id": f"r{i}", "text": RECORDS[i]} for i in range(0, 8, 2)])
    code, _ = _evaluate(tmp_path, "--originals", originals, "--sanitized", partial, "--alignment", "none")
    line = _error_line(capsys)
    assert code == 2 and "--alignment none is for synthetic data" in line and "carry the originals' ids" in line


def test_alignment_none_on_a_sanitized_file_that_lost_rows_is_refused(tmp_path, capsys, originals):
    scrubbed = [t.replace(t.split()[0], "PERSON") for t in RECORDS]  # names removed, the rest kept
    partial = _jsonl(tmp_path / "s.jsonl", [{"text": t} for t in scrubbed[:5]])
    code, _ = _evaluate(tmp_path, "--originals", originals, "--sanitized", partial, "--alignment", "none")
    line = _error_line(capsys)
    assert code == 2 and "sanitized set that lost records" in line and "--source-id-column" in line


def test_alignment_none_through_the_api_refuses_ids_and_paired_texts():
    with pytest.raises(ValueError, match="sanitized ids name the original"):
        evaluate_leakage(RECORDS, RECORDS[:4], alignment="none", sanitized_ids=["0", "1", "2", "3"], judge="lexical")
    with pytest.raises(ValueError, match="lost records"):
        evaluate_leakage(RECORDS, RECORDS[:4], alignment="none", judge="lexical", use_cache=False)
    # synthetic text that mixes facts of several people is not a lost-rows set: it runs unaligned
    synthetic = ["Anna is a pilot who lives in Rome and has lupus.", "A welder from Cork plays the violin on weekends."]
    r = evaluate_leakage(RECORDS, synthetic, alignment="none", judge="lexical", bootstrap=0, use_cache=False)
    assert r.settings["alignment"] == "none" and r.n_sanitized == 2


def test_the_text_pairing_test_tells_a_scrubbed_set_from_a_synthetic_one():
    from textleak.leakage.pairing import text_pairing

    scrubbed = [t.replace(t.split()[0], "[NAME]") for t in RECORDS[:6]]
    assert text_pairing(RECORDS, scrubbed).one_to_one
    assert text_pairing(RECORDS, scrubbed).matches == {i: i for i in range(6)}
    assert not text_pairing(RECORDS, ["Anna is a pilot who lives in Rome.", "Hana has gout and keeps two cats."]).one_to_one


# ---- 11. files that are valid but were read wrong --------------------------------------------------------
def test_jsonl_strings_holding_line_separators_are_read(tmp_path, originals):
    """Before: "line 3 is not valid JSON" (str.splitlines splits inside strings at U+2028, U+0085)."""
    from textleak.io import read_records

    odd = [t + ("\u2028" if i % 2 else "\u0085") + "More." for i, t in enumerate(RECORDS)]
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{i}", "text": t}, ensure_ascii=False) + "\r\n" for i, t in enumerate(odd)),
                    encoding="utf-8")
    assert [r["text"] for r in read_records(str(path))] == odd
    code, _ = _evaluate(tmp_path, "--originals", originals, "--sanitized", str(path))
    assert code == 0


def test_records_holding_line_separators_can_be_labelled(tmp_path, capsys):
    """textleak label read evaluate's records-*.jsonl with str.splitlines too: a claim holding U+2028
    (written raw) broke the file into invalid lines."""
    odd = _jsonl(tmp_path / "a.jsonl", [{"id": f"r{i}", "text": t.replace(". ", ".\u2028", 1)} for i, t in enumerate(RECORDS)])
    code, _ = _evaluate(tmp_path, "--originals", odd, "--sanitized", odd)
    assert code == 0 and "\u2028" in next((tmp_path / "out").glob("records-*.jsonl")).read_text(encoding="utf-8")
    assert main(["label", str(tmp_path / "out"), "--plan"]) == 0


def test_study_config_flag_reads_the_yaml_file(tmp_path, monkeypatch):
    """Before: `textleak study --config study.yaml` put the YAML path into the dataset-config field."""
    import textleak.study

    seen = []

    def capture(cfg, resume=True):
        seen.append(cfg)
        raise RuntimeError("stop here")

    monkeypatch.setattr(textleak.study, "run_study", capture)
    yaml_file = tmp_path / "study.yaml"
    yaml_file.write_text("dataset: demo\nlimit: 3\nsanitizers: [identity]\n")
    main(["study", "--config", str(yaml_file), "--dataset-config", "fixture"])
    (cfg,) = seen
    assert cfg.dataset == "demo" and cfg.limit == 3 and cfg.sanitizers == ["identity"] and cfg.config == "fixture"
    seen.clear()
    main(["study", "--config", str(yaml_file)])
    assert seen[0].config is None


# ---- 12. damaged files and caches ---------------------------------------------------------------------------
def _small_study(tmp_path):
    from textleak.leakage import LeakageConfig
    from textleak.study import StudyConfig

    return StudyConfig(dataset="demo", limit=6, sanitizers=["remove_all"], utility=False, linkage_ablation=False,
                       output=str(tmp_path / "study"), leakage=LeakageConfig(judge="lexical", bootstrap=0))


def test_a_study_stage_file_cut_short_is_named_with_what_to_do(tmp_path, capsys):
    """Before: "Unterminated string starting at: line 1 column 25", no file name."""
    from textleak.study import run_study

    cfg = _small_study(tmp_path)
    run_study(cfg, progress=False)
    stage = tmp_path / "study" / "remove_all" / "sanitized.jsonl"
    stage.write_text(stage.read_text()[:30])
    with pytest.raises(ValueError) as err:
        run_study(cfg, progress=False)
    assert str(stage) in str(err.value) and "--fresh" in str(err.value) and "cut short" in str(err.value)
    run_study(cfg, resume=False, progress=False)  # and --fresh recomputes it


@pytest.mark.parametrize("damage", ['"abc"', "[]", "{}", "not json", "null", "[1, 2]"])
def test_damaged_cache_values_are_misses_never_values(tmp_path, monkeypatch, caplog, damage):
    """Before: "string indices must be integers", "'NoneType' object is not iterable", and claims set
    to [] gave lexical privacy 1.000 with exit 0."""
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    from textleak.sanitize import create_sanitizer, run_sanitizer

    released = [r.text for r in run_sanitizer(create_sanitizer("numbers_changed"), RECORDS)]
    honest = evaluate_leakage(RECORDS, released, judge="lexical", bootstrap=0)
    for name in ("claims", "ratings", "sanitized"):
        with sqlite3.connect(tmp_path / "cache" / f"{name}.sqlite") as db:
            db.execute("UPDATE kv SET v = ?", (damage,))
    with caplog.at_level(logging.WARNING, logger="textleak.cache"):
        again = [r.text for r in run_sanitizer(create_sanitizer("numbers_changed"), RECORDS)]
        damaged = evaluate_leakage(RECORDS, again, judge="lexical", bootstrap=0)
    assert again == released
    assert damaged.semantic_privacy == honest.semantic_privacy and damaged.lexical_privacy == honest.lexical_privacy
    assert any("damaged entries in the cache" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("damage", ['"abc"', "[]", "null", '[1]'])
def test_damaged_llm_cache_entries_are_misses(tmp_path, monkeypatch, caplog, damage):
    """A damaged answer in llm.sqlite was used as a value ("abc" read as three samples)."""
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    from textleak.llm import ScriptedLM

    lm = ScriptedLM(lambda p, i, s: f"answer {i}", scorer=lambda p, c: -1.0, use_cache=True, name="damage")
    prompts = ["one", "two"]
    first, scores = lm.generate(prompts), lm.score(prompts, ["A", "B"])
    with sqlite3.connect(tmp_path / "cache" / "llm.sqlite") as db:
        db.execute("UPDATE kv SET v = ?", (damage,))
    with caplog.at_level(logging.WARNING, logger="textleak.cache"):
        assert lm.generate(prompts) == first and lm.score(prompts, ["A", "B"]) == scores
    assert any("damaged entries in the cache" in r.getMessage() for r in caplog.records)


def test_an_atomizer_that_gives_no_claims_for_a_text_does_not_make_it_private(caplog):
    from textleak.atomizers import Atomizer

    class Silent(Atomizer):
        name = "silent"

        def atomize(self, texts, seeds=None):
            return [[] for _ in texts]

        def describe(self):
            return {"name": "silent"}

    with caplog.at_level(logging.WARNING):
        r = evaluate_leakage(RECORDS, RECORDS, judge="lexical", atomizer=Silent(), bootstrap=0, use_cache=False)
    assert r.lexical_privacy == 0.0  # each text is its one claim: it links to itself and leaks
    assert any("gave no claims" in rec.getMessage() for rec in caplog.records)


# ---- 13. smaller ------------------------------------------------------------------------------------------
def test_epsilon_true_is_refused():
    from textleak.sanitize import create_sanitizer

    with pytest.raises(ValueError, match="epsilon"):
        create_sanitizer("santext+", epsilon=True)
    from textleak.dp.base import check_epsilon

    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(True)


def test_alignment_help_says_auto_never_falls_back_to_unaligned(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "else none)" not in help_text and "never unaligned unless asked" in help_text


# ---- 14. per-call options of the metric ---------------------------------------------------------------------
def test_metric_takes_leakage_options_at_compute_time():
    """Before: leak.compute(..., alignment="none") was a TypeError."""
    from textleak.metrics import SemanticLeakage

    metric = SemanticLeakage(judge="lexical", bootstrap=0, keep_in_memory=True)
    synthetic = ["Anna is a pilot who lives in Rome and has lupus."]
    r = metric.compute(predictions=synthetic, references=RECORDS, alignment="none")
    assert r["settings"]["alignment"] == "none" and r["linkage_rate"] is None
    assert metric.leakage_config.alignment == "auto"  # the load-time value stays the default
    r = metric.compute(predictions=RECORDS, references=RECORDS, k=2)
    assert r["settings"]["k"] == 2
    with pytest.raises(TypeError, match="unknown option.*colour"):
        metric.compute(predictions=RECORDS, references=RECORDS, colour="red")
