"""Fail toward leakage, probed as a demanding reviewer would (issue 12).

Each case: the honest baseline, the faulty variant, and the assertion that privacy does not rise
(or that the run refuses, or flags it). The numbers a reviewer measured before these fixes are in the
docstrings; every case here passed silently, with exit status 0, before.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat

import pytest

from textleak.cli import main
from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge, normalise
from textleak.leakage import LeakageConfig, evaluate_leakage
from textleak.leakage.aggregate import UnparsedClaimsError
from textleak.llm import ScriptedLM

from _profiles import RECORDS  # noqa: E402  (eight synthetic profiles, shared with test_adversarial_files)


def lexical(originals, sanitized, **kw):
    kw.setdefault("bootstrap", 0)
    kw.setdefault("judge", "lexical")
    return evaluate_leakage(originals, sanitized, use_cache=False, **kw)


# ---- 1. missing sanitized records --------------------------------------------------------------------
def test_dropped_records_never_raise_privacy():
    """Before: dropping 4 of 8 identity records took privacy 0.009 -> 0.273 (auto became unaligned)."""
    honest = lexical(RECORDS, RECORDS)
    with pytest.raises(ValueError, match="alignment='none'"):  # no silent switch to unaligned
        lexical(RECORDS, RECORDS[:4])
    kept = list(range(0, 8, 2))
    dropped = lexical(RECORDS, [RECORDS[i] for i in kept], sanitized_ids=[str(i) for i in kept])
    assert dropped.n_missing == 4 and dropped.semantic_privacy <= honest.semantic_privacy + 1e-9
    assert dropped.linkage_rate >= honest.linkage_rate
    one_kept = lexical(RECORDS, [RECORDS[0]], sanitized_ids=["0"])
    assert one_kept.semantic_privacy <= honest.semantic_privacy + 1e-9
    with pytest.raises(ValueError, match="4 of 8 originals have no sanitized record"):
        lexical(RECORDS, [RECORDS[i] for i in kept], sanitized_ids=[str(i) for i in kept], missing="error")
    nones = lexical(RECORDS, [t if i % 2 == 0 else None for i, t in enumerate(RECORDS)])
    assert nones.n_missing == 4 and nones.semantic_privacy <= honest.semantic_privacy + 1e-9
    assert nones.settings["missing"] == "original"


def test_unequal_sizes_through_the_metric_are_refused_unless_unaligned_is_asked_for():
    from textleak.metrics import SemanticLeakage

    metric = SemanticLeakage(judge="lexical", bootstrap=0, keep_in_memory=True)
    with pytest.raises(ValueError, match="alignment='none'"):
        metric.compute(predictions=RECORDS[:4], references=RECORDS)
    honest = metric.compute(predictions=RECORDS, references=RECORDS)
    with_nones = metric.compute(predictions=[t if i % 2 == 0 else None for i, t in enumerate(RECORDS)], references=RECORDS)
    assert with_nones["n_missing"] == 4 and with_nones["semantic_privacy"] <= honest["semantic_privacy"] + 1e-9


def test_cli_with_a_partial_sanitized_file_counts_the_missing_as_released(tmp_path, capsys):
    originals = tmp_path / "o.jsonl"
    originals.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(RECORDS)))
    partial = tmp_path / "s.jsonl"
    partial.write_text("".join(json.dumps({"id": str(i), "text": RECORDS[i]}) + "\n" for i in range(0, 8, 2)))
    assert main(["evaluate", "--originals", str(originals), "--sanitized", str(partial), "--judge", "lexical",
                 "--bootstrap", "0", "--output", str(tmp_path / "out"), "--no-progress"]) == 0
    (row,) = json.loads((tmp_path / "out" / "report.json").read_text())["results"]
    assert row["n_missing"] == 4 and row["semantic_privacy"] == pytest.approx(0.0) and row["linkage_rate"] == 1.0


# ---- 2. judge failures -----------------------------------------------------------------------------
class RefusingJudge(Judge):
    """Rates like a substring judge, but refuses (unparsed) every claim that would rate 1."""

    def _rate(self, claims, documents, seeds):
        out = []
        for cs, doc in zip(claims, documents):
            row = []
            for c in cs:
                same = c.rstrip(".") in doc
                row.append(ClaimRating(None, None, UNPARSED) if same else ClaimRating(3, normalise(3), OK))
            out.append(row)
        return out

    def describe(self):
        return {"name": "refusing"}


def test_a_judge_that_refuses_the_leaking_claims_does_not_raise_privacy():
    """Before: privacy 0.204 -> 0.536 with 394 of 402 claims unparsed, exit 0."""
    honest = lexical(RECORDS, RECORDS)
    with pytest.raises(UnparsedClaimsError, match="16 of 16 judged claims"):
        evaluate_leakage(RECORDS, RECORDS, judge=RefusingJudge(), use_cache=False, bootstrap=0)
    r = evaluate_leakage(RECORDS, RECORDS, judge=RefusingJudge(), use_cache=False, bootstrap=0, max_unparsed_share=1.0)
    assert r.unparsed_claims == 16 and r.semantic_privacy <= honest.semantic_privacy + 1e-9  # unparsed counts as leaked


def test_unparsable_llm_answers_are_never_cached(tmp_path, monkeypatch):
    """Before: garbage answers were cached for good; a rerun after the server was fixed sent no request."""
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    broken = {"on": True}

    def respond(prompt, i, seed):
        if broken["on"]:
            return "I cannot help with that."
        n = prompt[-1]["content"].count("- Claim ")
        return "**Output**:\n" + "\n".join(f"- Claim {k} Similarity Rating: 1" for k in range(1, n + 1))

    lm = ScriptedLM(respond, name="flaky-server", use_cache=True)
    options = dict(judge="llm", llm=lm, judge_options={"n": 1, "max_retries": 0}, bootstrap=0, max_unparsed_share=1.0)
    first = evaluate_leakage(RECORDS[:2], RECORDS[:2], **options)
    assert first.unparsed_claims == first.n_scored_claims == 4 and first.semantic_privacy == 0.0
    broken["on"] = False
    calls = len(lm.calls)
    second = evaluate_leakage(RECORDS[:2], RECORDS[:2], **options)
    assert len(lm.calls) > calls  # asked again
    assert second.unparsed_claims == 0 and second.semantic_privacy == 0.0
    calls = len(lm.calls)
    evaluate_leakage(RECORDS[:2], RECORDS[:2], **options)
    assert len(lm.calls) == calls  # parsed answers are cached


# ---- 3. text that reads the same to a person ------------------------------------------------------------
@pytest.mark.parametrize("disguise", [
    lambda t: "\u200b".join(t),  # a zero-width space between every character
    lambda t: t.replace("a", "\u0430").replace("o", "\u043e").replace("e", "\u0435"),  # Cyrillic look-alikes
    lambda t: "\u202e" + t + "\u202c",  # bidi override
    lambda t: t.replace(" ", "\u00a0"),  # non-breaking spaces
])
def test_invisible_changes_do_not_raise_privacy(disguise):
    """Before: zero-width spaces took identity 0.008 -> 0.696; Cyrillic look-alikes -> 0.747."""
    honest = lexical(RECORDS, RECORDS)
    disguised = lexical(RECORDS, [disguise(t) for t in RECORDS])
    assert disguised.semantic_privacy <= honest.semantic_privacy + 0.05
    assert disguised.linkage_rate >= honest.linkage_rate


@pytest.mark.parametrize("disguise", [
    lambda t: "\u200b".join(t),
    lambda t: t.replace("a", "\u0430").replace("o", "\u043e").replace("e", "\u0435"),
])
def test_invisible_changes_do_not_raise_privacy_under_the_default_judge(disguise):
    """The NLI judge (the default) sees the normalised text too: a disguised identity stays leaked."""
    honest = evaluate_leakage(RECORDS, RECORDS, use_cache=False, bootstrap=0)
    disguised = evaluate_leakage(RECORDS, [disguise(t) for t in RECORDS], use_cache=False, bootstrap=0)
    assert honest.judge["name"] == "nli"
    assert disguised.semantic_privacy <= honest.semantic_privacy + 0.05


CHAT_RECORDS = [
    "My pod ledger-worker-7d9f8c6b5-x2kqp keeps crashing since I moved it to the new cluster. The police report number "
    "for the break-in at our office is 24-318877, and the dent is on the rear bumper of the company van.",
    "I'm a sophomore with a GPA of 3.4 and I have 14 EMIs left on my loan of 1 234 dollars. My IBAN is "
    "IE64 IRCE 9205 0112 3456 78 and I was charged 380 euros for the scratch.",
]


@pytest.mark.parametrize("disguise", [
    lambda t: "\u200b".join(t),
    lambda t: t.replace("a", "\u0430").replace("o", "\u043e").replace("e", "\u0435"),
    lambda t: t.replace("1 234", "1,234").replace("380", "EUR 380,00"),  # the same numbers in another form
])
def test_the_near_miss_rule_never_calls_a_released_value_another(disguise):
    """Rules R and AN move a claim from 1 to 2 (toward privacy) where the text writes another value in its place. On
    chat records full of numbers and codes, released as they are, disguised with invisible marks or look-alike
    letters, or with their numbers written another way, they find no rival, and the disguise does not raise privacy."""
    honest = evaluate_leakage(CHAT_RECORDS, CHAT_RECORDS, use_cache=False, bootstrap=0)
    disguised = evaluate_leakage(CHAT_RECORDS, [disguise(t) for t in CHAT_RECORDS], use_cache=False, bootstrap=0)
    assert honest.judge["name"] == "nli"
    rivals = [c["text"] for report in (honest, disguised) for r in report.records for c in r.claims if "rival" in c.get("detail", {})]
    assert rivals == []
    assert disguised.semantic_privacy <= honest.semantic_privacy + 0.05


FAMILY_RECORDS = [
    "My brother Will is flying in from Denver on Friday and my son Mark turns 12 the day after. "
    "Can you help me plan a small party for about 15 kids?",
    "My manager Rose approved my leave for the wedding, and my daughter Hope will be the flower girl. "
    "I need a short thank-you note for Rose.",
]


@pytest.mark.parametrize("disguise", [
    lambda t: re.sub(r"\b(Will|Mark|Rose|Hope)\b", lambda m: m.group(0).lower(), t),  # the names lowered, the rest as written
    pytest.param(lambda t: t.lower(), marks=pytest.mark.xfail(strict=True, reason=(
        "known, older than rules .25 (7790326 gives the same 0.126 -> 0.226): the span finder splits sentences only before a "
        "capital, so an all-lower-case release is read as one long span and the cross-encoder's p(same) is diluted; splitting "
        "before lower case too (rule LS) cost writers C and E 0.008 and 0.020 (docs/judges.md)"))),
])
def test_names_that_are_also_words_lowered_by_a_release_do_not_raise_privacy(disguise):
    """A one-word name that is a frequent word ("Will", "Mark", "Rose", "Hope") is matched case-sensitively where the
    writer capitalises, so that "he will visit" does not write a brother named Will (rules .25). A release that lowers
    the names ("my brother will is flying in") still writes them: privacy stays within 0.05 of the release as written."""
    honest = evaluate_leakage(FAMILY_RECORDS, FAMILY_RECORDS, use_cache=False, bootstrap=0)
    disguised = evaluate_leakage(FAMILY_RECORDS, [disguise(t) for t in FAMILY_RECORDS], use_cache=False, bootstrap=0)
    assert disguised.semantic_privacy <= honest.semantic_privacy + 0.05, (honest.semantic_privacy, disguised.semantic_privacy)


def test_nli_judge_without_its_weights_fails_instead_of_scoring(tmp_path):
    """A missing or foreign adapter is an error naming the folder, never a rating."""
    from textleak.judges import make_judge

    judge = make_judge("nli", weights=str(tmp_path), cascade=None, verbatim=False)
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        judge.rate([["She has a cough and a fever."]], ["A woman with a cough comes to the clinic."])


def test_nli_model_that_outputs_nan_fails_instead_of_scoring(monkeypatch):
    """Before: NaN probabilities (a corrupt adapter, an fp16 overflow) crashed in most_probable with a bare
    StopIteration, or, with one finite column, became whatever rating the NaNs let through."""
    import torch

    import textleak.judges.nli as nli
    from textleak.judges import make_judge

    model = nli.load_nli_model()
    monkeypatch.setattr(model, "_forward", lambda pairs, encoded=None: torch.full((len(pairs), 3), float("nan")))
    judge = make_judge("nli", verbatim=False, cascade=None)
    with pytest.raises(ValueError, match="non-finite probabilities"):
        judge.rate([["She has a cough and a fever."]], ["A woman with a cough comes to the clinic."])


def test_nli_judge_reads_a_claim_longer_than_its_window():
    """A claim past the cross-encoder's 128 tokens is truncated, not dropped: it still gets a rating."""
    from textleak.judges import make_judge

    claim = "She has a cough, " + ", ".join(f"symptom number {k}" for k in range(60)) + "."
    (r,) = make_judge("nli", verbatim=False, cascade=None).rate([[claim]], ["She has a cough."])[0]
    assert r.rating in (1, 2, 3) and 0.0 <= r.score <= 1.0


def test_a_verbatim_claim_in_a_non_latin_script_is_not_unsupported():
    """Before: the ROUGE tokenizer keeps a-z and 0-9 only, so a Chinese claim had no tokens and the
    lexical judge rated it unsupported, and its lexical privacy read 1.0 under the identity."""
    from textleak.judges import make_judge

    record = "患者是一名45岁的男性。他有高血压病史。他主诉胸痛三天。他吸烟二十年。他的父亲患有糖尿病。"
    (rating,) = make_judge("lexical").rate([["他有高血压病史。"]], [record])[0]
    assert rating.rating == 1
    r = lexical([record], [record])
    assert r.semantic_privacy == pytest.approx(0.0) and r.lexical_privacy == pytest.approx(0.0)


# ---- 4. decoys against the number guard ---------------------------------------------------------------
DECOYS = [  # (claim, document stating it, a similar sentence with another number appended as a decoy)
    ("Boris is 60 years old.", "Boris, a 60-year-old pilot, lives in Rome.", " Boris is 61 years old."),
    ("The patient is a 45-year-old woman.", "A 45-year-old woman comes to the clinic with fatigue.", " The patient is a 54-year-old woman."),
    ("Her temperature is 38.5 C.", "Vital signs: temperature 38.5 C, pulse 90/min.", " Her temperature is 37.1 C."),
]


@pytest.mark.parametrize("judge", ["lexical", "embedding", "nli"])
def test_a_similar_record_appended_as_a_decoy_does_not_hide_a_verbatim_claim(judge):
    """Before: the guard checked only the best-matching span, so the decoy turned 1 into 2 (embedding:
    all three cases; lexical with the guard: the second)."""
    from textleak.judges import make_judge

    j = make_judge(judge, **({"number_guard": True} if judge == "lexical" else {}))
    for claim, doc, decoy in DECOYS:
        honest, attacked = j.rate([[claim], [claim]], [doc, doc + decoy])
        assert honest[0].rating == 1 and attacked[0].rating == 1, claim


# ---- 5. study resume is keyed by config and data --------------------------------------------------------
def test_study_resume_recomputes_when_settings_or_data_change(tmp_path):
    """Before: a rerun with --k 1 --judge lexical into the same folder kept the old k=3 numbers under the
    new labels; a smaller --limit crashed with IndexError."""
    from textleak.study import StudyConfig, run_study

    base = dict(dataset="demo", sanitizers=["identity"], utility=False, linkage_ablation=False, output=str(tmp_path / "s"))
    a = run_study(StudyConfig(**base, limit=6, leakage=LeakageConfig(bootstrap=0)), progress=False)
    b = run_study(StudyConfig(**base, limit=6, leakage=LeakageConfig(bootstrap=0, k=1, judge="lexical")), progress=False)
    fresh = run_study(StudyConfig(**{**base, "output": str(tmp_path / "fresh")}, limit=6,
                                  leakage=LeakageConfig(bootstrap=0, k=1, judge="lexical")), progress=False)
    assert b["rows"][0]["semantic_privacy"] == fresh["rows"][0]["semantic_privacy"]
    assert b["rows"][0]["n_scored_claims"] != a["rows"][0]["n_scored_claims"]  # k=1 scores more claims
    smaller = run_study(StudyConfig(**base, limit=3, leakage=LeakageConfig(bootstrap=0)), progress=False)
    assert smaller["n_records"] == 3 and smaller["rows"][0]["n_records"] == 3


def test_study_resume_recomputes_for_other_data_of_the_same_size(tmp_path):
    from textleak.study import StudyConfig, run_study

    data = tmp_path / "d.jsonl"
    base = dict(sanitizers=["remove_all"], utility=False, linkage_ablation=False, output=str(tmp_path / "s"),
                leakage=LeakageConfig(bootstrap=0))
    data.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(RECORDS[:4])))
    a = run_study(StudyConfig(dataset=str(data), **base), progress=False)
    data.write_text("".join(json.dumps({"id": str(i), "text": t + " Also likes tea."}) + "\n" for i, t in enumerate(RECORDS[:4])))
    b = run_study(StudyConfig(dataset=str(data), **base), progress=False)
    assert b["rows"][0]["n_claims"] == a["rows"][0]["n_claims"] + 4


# ---- 6. chance-level utility, failure counts, a sanitizer that fails everywhere ------------------------------
def test_chance_level_utility_is_not_shown_as_a_number_and_failures_are_counted(tmp_path):
    """Before: 0.19-0.20 for every sanitizer from a base model answering at chance; failures only in study.json."""
    from textleak.study import StudyConfig, run_study

    always_a = ScriptedLM(lambda p, i, s: "A", scorer=lambda p, c: 0.0 if c.strip() == "A" else -5.0, name="always-A")
    out = tmp_path / "study"
    result = run_study(StudyConfig(dataset="demo", limit=12, sanitizers=["identity", "remove_all"], llm=always_a,
                                   linkage_ablation=False, output=str(out), leakage=LeakageConfig(bootstrap=0)), progress=False)
    assert all(r["utility"] is None and "chance" in r["utility_note"] for r in result["rows"])
    page = (out / "report.html").read_text()
    assert "n/a (chance)" in page and "Utility not shown" in page and "0 of 12" in page  # failed-records column
    header = (out / "summary.csv").read_text().splitlines()[0].split(",")
    assert "failed_records" in header and "utility_note" in header


def test_sanitize_exits_non_zero_when_every_record_failed(tmp_path, monkeypatch):
    from textleak.registry import sanitizers
    from textleak.sanitize.base import SanitizeResult, Sanitizer

    class AlwaysFails(Sanitizer):
        def sanitize_batch(self, texts, seeds):
            return [SanitizeResult(None, "llm_error") for _ in texts]

    monkeypatch.setitem(sanitizers._items, "always_fails", AlwaysFails)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in RECORDS[:3]))
    assert main(["sanitize", "--sanitizer", "identity", "--input", str(src), "--output", str(tmp_path / "ok.jsonl")]) == 0
    assert main(["sanitize", "--sanitizer", "always_fails", "--input", str(src), "--output", str(tmp_path / "o.jsonl")]) == 1


# ---- 7. ties in linking ----------------------------------------------------------------------------------
def test_score_ties_break_toward_the_lower_record_id_and_are_counted():
    """Before: bm25s broke exact ties arbitrarily; 42 of 2,000 links differed from Lucene's."""
    from textleak.linkers import make_linker

    pool = ["unrelated words here", "Anna is a cook in Oslo", "Boris flies planes", "Anna is a cook in Oslo"]
    for name in ("bm25", "rouge", "dense"):
        linker = make_linker(name).fit(pool)
        (link,) = linker.link([["Anna is a cook in Oslo"]])
        assert link.index == 1 and link.tied == 2, name
    r = lexical(["Anna is a cook in Oslo. Anna has asthma. Anna is 25. Anna owns a bike."] * 2,
                ["Anna is a cook in Oslo. Anna has asthma. Anna is 25. Anna owns a bike."] * 2, knowledge="first")
    assert r.n_tied_links == 2 and r.records[1].link_tied == 2 and r.records[1].linked_index == 0


def test_a_query_term_no_record_holds_does_not_crash_bm25():
    """Before: a possessive 's in the known claims raised "maximum token ID in the query" in bm25s."""
    from textleak.linkers import make_linker

    linker = make_linker("bm25").fit(["Anna is a cook", "Boris flies"])
    (link,) = linker.link([["Anna's cook's knife's blade's zzz"]])
    assert link.index == 0


# ---- 8. short records --------------------------------------------------------------------------------------
def test_short_records_are_counted_warned_and_can_keep_one_claim(caplog):
    """Before: ten 3-claim records with k=3 printed 0.000 [0.00, 0.00] with "claims 2" where n_claims was 29."""
    short = [f"{n} is {20 + i} years old. {n} is a cook. {n} lives in Oslo." for i, n in enumerate("ABCDEFGHIJ")]
    with caplog.at_level(logging.WARNING):
        r = lexical(short, short)
    assert r.n_unscored == 10 and r.semantic_privacy is None and "no claim left to score" in caplog.text
    kept = lexical(short, short, short_records="reduce_k")
    assert kept.n_unscored == 0 and kept.n_scored_claims == 10 and kept.semantic_privacy == pytest.approx(0.0)


# ---- security and errors ------------------------------------------------------------------------------------
def test_outputs_and_caches_are_private(tmp_path, monkeypatch):
    from textleak.cache import DiskCache

    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "cache"))
    originals = tmp_path / "o.jsonl"
    originals.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(RECORDS[:3])))
    out = tmp_path / "out"
    assert main(["evaluate", "--originals", str(originals), "--sanitizer", "identity", "--judge", "lexical",
                 "--bootstrap", "0", "--output", str(out), "--no-progress"]) == 0
    for path in [out, *out.iterdir(), DiskCache("claims").path, DiskCache("claims").path.parent]:
        mode = stat.S_IMODE(os.stat(path).st_mode)
        assert mode & 0o077 == 0, (path, oct(mode))


def test_the_report_drilldown_can_hold_no_private_text(tmp_path):
    from textleak.study import StudyConfig, run_study

    out = tmp_path / "s"
    run_study(StudyConfig(dataset="demo", limit=4, sanitizers=["identity"], utility=False, linkage_ablation=False,
                          output=str(out), drilldown_limit=0, leakage=LeakageConfig(bootstrap=0)), progress=False)
    from textleak.study import load_study_records

    _, records = load_study_records(StudyConfig(dataset="demo", limit=4))
    page = (out / "report.html").read_text()
    assert not any(r["text"][:40] in page for r in records)


def test_a_broken_cache_file_is_named(tmp_path, monkeypatch):
    from textleak.cache import CacheError, DiskCache

    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path))
    cache = DiskCache("claims")
    cache.set_many({"a": 1})
    data = cache.path.read_bytes()
    cache.path.write_bytes(data[: len(data) // 2] + b"\0" * 100)
    for suffix in ("-wal", "-shm"):
        cache.path.with_name(cache.path.name + suffix).unlink(missing_ok=True)
    with pytest.raises(CacheError, match=str(cache.path)):
        DiskCache("claims").get_many(["a", "b"])


def test_non_utf8_input_names_the_file(tmp_path, capsys):
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(json.dumps({"text": "caf\u00e9"}, ensure_ascii=False).encode("latin-1") + b"\n")
    assert main(["evaluate", "--originals", str(bad), "--sanitizer", "identity", "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "UTF-8" in err and "Traceback" not in err


@pytest.mark.parametrize("options, match", [
    ({"bootstrap": -3}, "bootstrap must be an integer >= 0"),
    ({"k": 2.5}, "k .* must be an integer >= 1"),
    ({"k": 0}, "k .* must be an integer >= 1"),
    ({"max_unparsed_share": 2}, "max_unparsed_share"),
    ({"judge": "nope"}, "unknown judge 'nope'"),
])
def test_bad_options_are_one_clear_error(options, match):
    with pytest.raises(ValueError, match=match):
        lexical(RECORDS, RECORDS, **options)


def test_a_string_instead_of_a_list_is_an_error_not_characters():
    """Before: a string was iterated as characters ("record 5 is empty")."""
    with pytest.raises(TypeError, match="single string"):
        lexical(RECORDS[0], RECORDS[0])
    with pytest.raises(TypeError, match="single string"):
        lexical(RECORDS, RECORDS, sanitized_ids="01234567")


def test_cli_errors_are_one_line_with_exit_2_and_debug_shows_the_traceback(tmp_path, capsys):
    assert main(["evaluate", "--originals", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "missing.jsonl" in err and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(FileNotFoundError):
        main(["evaluate", "--originals", str(tmp_path / "missing.jsonl"), "--debug"])
    assert main(["evaluate", "--bootstrap", "-3", "--limit", "2"]) == 2
    assert "bootstrap must be an integer >= 0" in capsys.readouterr().err


@pytest.mark.parametrize("claim, span", [
    ("Her count is " + "9" * 400 + ".", "The count is 5."),        # a number beyond float range
    ("Her count is " + "9" * 400 + ".", "The count is " + "9" * 401 + "."),
    ("", ""),
    ("pulse 0", "pulse 0.0"),                                       # zeros in a log ratio
    ("Her pulse is 1,,,2.", "pulse 3,"),                            # malformed digit groups
    ("体温 38.5", "体温 36.0"),                                      # non-Latin label words
])
def test_nli_pair_features_stay_finite_on_odd_input(claim, span):
    """A NaN or infinite feature would reach the head and make the rating arbitrary (the model's NaN
    check would then stop the run); every feature must be a finite number in [0, 1] instead."""
    import math

    from textleak.judges.nli import pair_features

    values = pair_features(claim, span)
    assert all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values.values()), values


def test_a_prefix_that_never_reaches_generate_is_an_error_not_base_model_text(monkeypatch):
    """transformers 5.24 dropped peft's prefix inside generate(): the 'prefix-tuned' texts were the base
    model's, which leak less, so the method's row looked more private than it is. Simulated here by a
    generate() that bypasses the prefix: generation must refuse, not sample."""
    from textleak.controlled.prefix import PrefixTuner
    from textleak.synthesis.tiny import tiny_causal_lm

    model, tok = tiny_causal_lm("llama", seed=0, hidden=32, layers=2)
    tuner = PrefixTuner(model, tok, num_virtual_tokens=4, epochs=1, max_length=64, seed=0, cpu=True)
    tuner.fit(["PERSON: Ann Lee"], ["Ann Lee met the judge."], [[(0, 7)]])
    assert tuner.generate(["PERSON: Ann Lee"], max_new_tokens=4, temperature=0.0)  # the real path works
    tuner._prefix_checked = False
    peft_model = tuner.peft_model
    monkeypatch.setattr(peft_model, "generate", peft_model.get_base_model().generate)
    with pytest.raises(RuntimeError, match="prefix does not reach generate"):
        tuner.generate(["PERSON: Ann Lee"], max_new_tokens=4, temperature=0.7)


@pytest.mark.parametrize("disguise", [
    lambda t: "\u200b".join(t),  # zero-width spaces, also inside "no", "not" and "can’t"
    lambda t: t.replace("o", "\u043e").replace("a", "\u0430"),  # look-alike letters, also in the negation cues
    lambda t: t.replace("’", "'").replace("can't", "can\u2019t"),  # the other apostrophe
])
def test_a_negation_beside_a_stated_fact_disguised_does_not_raise_privacy(disguise):
    """The verbatim shortcut reads negation over the claim's words (rules 2026-11-29.4): a released text that
    writes the same facts, with its negation cues disguised, must not read as more private than the plain one."""
    extra = " She takes warfarin daily and feels well, with no bleeding. She does not smoke, and she can’t walk unaided."
    records = [r + extra for r in RECORDS]
    honest = evaluate_leakage(records, records, use_cache=False, bootstrap=0)
    disguised = evaluate_leakage(records, [disguise(t) for t in records], use_cache=False, bootstrap=0)
    assert honest.semantic_privacy <= 0.10
    assert disguised.semantic_privacy <= honest.semantic_privacy + 0.05
