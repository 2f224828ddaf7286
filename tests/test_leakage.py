"""The pipeline: aggregation (eq. 1), adversary knowledge, alignment, policies for bad input, caching/resume."""

from __future__ import annotations

import json
import random

import pytest

from textleak.leakage.knowledge import parse_paraphrase, select_known_indices
from textleak.judges.base import OK, UNPARSED, ClaimRating, Judge, normalise
from textleak.leakage import bootstrap_ci, evaluate_leakage
from textleak.leakage.aggregate import UnparsedClaimsError

ORIGINALS = [
    "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
    "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
    "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin.",
]


class SubstringJudge(Judge):
    """Rates 1 when the claim's text occurs in the document, 2 when its last word does, else 3;
    a claim containing "???" is unparsed. Records every call."""

    name = "substring"

    def __init__(self, fail_after: int | None = None):
        self.calls: list[tuple[list[str], str]] = []
        self.fail_after = fail_after

    def _rate(self, claims, documents, seeds=None):
        out = []
        for cs, doc in zip(claims, documents):
            if self.fail_after is not None and len(self.calls) >= self.fail_after:
                raise RuntimeError("judge backend went away")
            self.calls.append((list(cs), doc))
            row = []
            for c in cs:
                if "???" in c:
                    row.append(ClaimRating(None, None, UNPARSED))
                    continue
                core = c.rstrip(".")
                r = 1 if core in doc else 2 if core.split()[-1] in doc else 3
                row.append(ClaimRating(r, normalise(r), OK))
            out.append(row)
        return out

    def describe(self):
        return {"name": self.name}


def run(originals, sanitized, judge=None, **kw):
    kw.setdefault("bootstrap", 200)
    return evaluate_leakage(originals, sanitized, judge=judge or SubstringJudge(), use_cache=False, **kw)


def test_identity_leaks_everything_and_remove_all_nothing():
    ident = run(ORIGINALS, ORIGINALS)
    assert ident.semantic_privacy == 0.0 and ident.lexical_privacy == pytest.approx(0.0)
    assert ident.linkage_rate == 1.0 and ident.linkage_at_k == {"1": 1.0, "5": 1.0, "10": 1.0}
    assert ident.n_claims == 15 and ident.n_scored_claims == 6  # 5 claims per record, 3 known
    judge = SubstringJudge()
    empty = run(ORIGINALS, ["", "", ""], judge=judge)
    assert empty.semantic_privacy == 1.0 and empty.lexical_privacy == 1.0
    assert empty.linkage_rate == 0.0 and empty.n_unlinked == 3
    assert judge.calls == []  # empty records support nothing: no judge call


def test_privacy_is_mean_over_records_of_mean_over_claims_the_adversary_did_not_know():
    # record 0 keeps two facts verbatim; the others keep none; k=3 first claims known (age, job, city)
    sanitized = [
        "Anna has asthma. Anna owns a red bicycle. Anna is 25 years old. Anna is a cook. Anna lives in Oslo.",
        "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Someone has gout. See the maps.",
        "Chen is 41 years old. Chen is a teacher. Chen lives in Lima.",
    ]
    r = run(ORIGINALS, sanitized, k=3, knowledge="first")
    per_record = [rec.privacy for rec in r.records]
    # record 1: "Boris has gout" -> 2 (0.5: "gout" present), "Boris collects old maps" -> 2 ("maps" present)
    assert per_record == [0.0, 0.5, 1.0]
    assert r.semantic_privacy == pytest.approx(0.5)
    rec = r.records[1]
    assert [c["known"] for c in rec.claims] == [True, True, True, False, False]
    assert [c.get("rating") for c in rec.claims] == [None, None, None, 2, 2]
    assert rec.known_claims == ["Boris is 60 years old.", "Boris is a pilot.", "Boris lives in Rome."]
    assert rec.linked_index == 1 and rec.correct_link and rec.true_rank == 1 and rec.link_score > 0


def test_synthetic_set_of_other_size_and_no_alignment():
    sanitized = ["Boris is a pilot who lives in Rome and has gout.", "Unrelated text about weather."]
    with pytest.raises(ValueError, match="alignment='none'"):  # an unaligned evaluation must be asked for
        run(ORIGINALS, sanitized)
    r = run(ORIGINALS, sanitized, alignment="none")
    assert r.settings["alignment"] == "none" and r.linkage_rate is None and r.linkage_at_k is None
    assert r.records[1].linked_index == 0 and r.records[1].correct_link is None
    assert r.n_records == 3 and r.n_sanitized == 2
    with pytest.raises(ValueError, match="3 originals and 2 sanitized"):
        run(ORIGINALS, sanitized, alignment="index")


def test_missing_records_align_by_id_and_none_policy():
    # the sanitizer withheld record 1; ids say where the rest came from; the withheld one counts as released as it was
    r = run(ORIGINALS, [ORIGINALS[2], ORIGINALS[0]], original_ids=["a", "b", "c"], sanitized_ids=["c", "a"])
    assert r.settings["alignment"] == "ids" and r.n_missing == 1 and r.records[1].sanitized_missing
    assert [rec.correct_link for rec in r.records] == [True, True, True]
    assert r.linkage_rate == pytest.approx(1.0) and r.records[1].privacy == 0.0
    with pytest.raises(ValueError, match="1 of 3 originals have no sanitized record"):
        run(ORIGINALS, [ORIGINALS[0], None, ORIGINALS[2]], missing="error")
    released = run(ORIGINALS, [ORIGINALS[0], None, ORIGINALS[2]])
    assert released.n_sanitized == 3 and released.n_missing == 1 and released.records[1].correct_link is True
    with pytest.raises(ValueError, match="not among the originals"):
        run(ORIGINALS, [ORIGINALS[0]], original_ids=["a", "b", "c"], sanitized_ids=["z"])


@pytest.mark.parametrize(
    "originals, sanitized, error, match",
    [
        ([], [], ValueError, "originals is empty"),
        (None, [], ValueError, "originals is None"),
        ("one string", ["x"], TypeError, "single string"),
        (["ok text here.", 3], ["a", "b"], TypeError, "originals record 1 is int"),
        (["ok text here."], [b"bytes"], TypeError, "sanitized record 0 is bytes"),
        (["ok text here.", "   "], ["a", "b"], ValueError, "original record 1 .* is empty"),
    ],
)
def test_bad_input_is_a_clear_error(originals, sanitized, error, match):
    with pytest.raises(error, match=match):
        run(originals, sanitized)


def test_empty_originals_can_be_skipped_and_are_reported():
    r = run(ORIGINALS + [""], ORIGINALS + [""], empty_originals="skip")
    assert r.n_skipped == 1 and r.records[3].status == "skipped_empty" and r.records[3].privacy is None
    assert r.semantic_privacy == 0.0 and r.linkage_rate == 1.0  # the skipped record is out of both


def test_duplicate_originals_count_either_copy_as_correct_and_duplicate_ids_fail():
    originals = ORIGINALS + [ORIGINALS[0]]
    r = run(originals, originals)
    assert r.linkage_rate == 1.0
    with pytest.raises(ValueError, match="appears more than once"):
        run(ORIGINALS, ORIGINALS, original_ids=["a", "a", "b"])


def test_unparsed_claims_are_reported_not_scored_private():
    originals = [ORIGINALS[0] + " Anna ??? secret."]
    sanitized = [ORIGINALS[0]]
    with pytest.raises(UnparsedClaimsError, match="1 of 3 judged claims"):  # above max_unparsed_share: the run stops
        run(originals, sanitized, knowledge="first")
    r = run(originals, sanitized, knowledge="first", unparsed="exclude", max_unparsed_share=1.0)
    assert r.unparsed_claims == 1 and r.records[0].unparsed_claims == 1
    assert r.semantic_privacy == 0.0  # excluded, not counted as unsupported (which would give 1/3)
    leak = run(originals, sanitized, knowledge="first", max_unparsed_share=1.0)  # the default: an unparsed claim leaks
    assert leak.semantic_privacy == 0.0 and leak.n_scored_claims == 3


def test_unlinked_policy_score_empty_or_skip():
    originals = ["Zed paints murals. Zed rides horses. Zed eats figs. Zed keeps goats. Zed sings opera."] + ORIGINALS[1:]
    sanitized = ["Completely different words everywhere."] + ORIGINALS[1:]
    r = run(originals, sanitized)
    assert r.records[0].status == "unlinked" and r.records[0].privacy == 1.0 and r.n_unlinked == 1
    assert r.linkage_rate == pytest.approx(2 / 3)
    skip = run(originals, sanitized, unlinked="skip")
    assert skip.records[0].privacy is None and skip.semantic_privacy == 0.0 and skip.linkage_rate == pytest.approx(2 / 3)


def test_records_with_few_claims_are_unscored_but_counted():
    originals = ["Dana is 30 years old. Dana is a nurse."] + ORIGINALS
    r = run(originals, originals)
    assert r.records[0].status == "unscored" and r.records[0].privacy is None and r.n_unscored == 1
    assert r.linkage_rate == 1.0 and r.n_records == 4


def test_aux_selection_strategies():
    counts = [5, 2, 8, 3]
    rand = select_known_indices(counts, k=3, strategy="random", seed=7)
    assert rand[1] == [0, 1] and rand[3] == [0, 1, 2]
    assert all(len(set(x)) == 3 and all(0 <= j < n for j in x) for x, n in zip(rand, counts) if n > 3)
    # per-record seeds: record 2's choice does not depend on the records before it
    alone = select_known_indices([8], k=3, strategy="random", seed=7, record_indices=[2])
    assert alone[0] == rand[2]
    assert select_known_indices(counts, 3, "random", seed=8) != rand
    assert select_known_indices(counts, 3, "first") == [[0, 1, 2], [0, 1], [0, 1, 2], [0, 1, 2]]
    assert select_known_indices(counts, 3, "last") == [[2, 3, 4], [0, 1], [5, 6, 7], [0, 1, 2]]
    # the released code: random.seed(42) once, shuffle range(n) per record in order, first k
    rng = random.Random(42)
    expected = []
    for n in counts:
        order = list(range(n))
        rng.shuffle(order)
        expected.append(order[:3])
    assert select_known_indices(counts, 3, "release_shuffle", seed=42) == expected
    with pytest.raises(ValueError):
        select_known_indices(counts, 0)
    with pytest.raises(ValueError):
        select_known_indices(counts, 3, "middle")


def test_paraphrased_aux_uses_the_llm_and_keeps_claims_on_failure():
    from textleak.llm import ScriptedLM

    def respond(prompt, i, seed):
        text = prompt[-1]["content"]
        return "" if "Boris" in text else "Here is the paraphrase:\nThe person from Norway cooks for a living."

    lm = ScriptedLM(respond)
    r = run(ORIGINALS, ORIGINALS, paraphrase_knowledge=True, llm=lm, judge=SubstringJudge())
    assert all(c == "The person from Norway cooks for a living." for c in r.records[0].known_claims)
    assert r.records[1].known_claims[0].startswith("Boris")  # failed paraphrase: verbatim (stronger adversary)
    assert r.settings["paraphrase_knowledge"] is True
    assert parse_paraphrase("Explanation first.\n#\nNew text.") == "New text."
    assert parse_paraphrase("Paraphrased text: Some words") == "Some words"


def test_bootstrap_interval_is_deterministic_and_brackets_the_mean():
    values = [0.0, 0.5, 1.0, 0.25, 0.75] * 4
    ci = bootstrap_ci(values, 500, seed=3)
    assert ci == bootstrap_ci(values, 500, seed=3)
    assert ci[0] < 0.5 < ci[1]
    assert bootstrap_ci([], 100) is None and bootstrap_ci([0.3] * 5, 100) == [0.3, 0.3]
    r = run(ORIGINALS, ORIGINALS)
    assert r.ci95["semantic_privacy"] == [0.0, 0.0] and r.ci95["linkage_rate"] == [1.0, 1.0]


def test_ratings_are_cached_and_a_failed_run_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path))
    failing = SubstringJudge(fail_after=2)
    with pytest.raises(RuntimeError, match="went away"):
        evaluate_leakage(ORIGINALS, ORIGINALS, judge=failing, judge_batch_records=1, bootstrap=0)
    assert len(failing.calls) == 2
    again = SubstringJudge()
    r = evaluate_leakage(ORIGINALS, ORIGINALS, judge=again, judge_batch_records=1, bootstrap=0)
    assert len(again.calls) == 1  # the first two records came from the cache
    assert r.semantic_privacy == 0.0
    third = SubstringJudge()
    evaluate_leakage(ORIGINALS, ORIGINALS, judge=third, bootstrap=0)
    assert third.calls == []


def test_report_files(tmp_path):
    r = run(ORIGINALS, ORIGINALS)
    paths = r.write(tmp_path)
    summary = json.loads(paths["report"].read_text())
    assert summary["semantic_privacy"] == 0.0 and summary["judge"] == {"name": "substring"}
    assert summary["linker"]["name"] == "bm25" and summary["settings"]["k"] == 3 and "records" not in summary
    lines = [json.loads(l) for l in paths["records"].read_text().splitlines()]
    assert len(lines) == 3 and lines[0]["linked_id"] == "0" and len(lines[0]["claims"]) == 5
    assert {"text", "known"} <= set(lines[0]["claims"][0]) and "rating" in [c for c in lines[0]["claims"] if not c["known"]][0]


def test_llm_judge_spec_and_model_pass_through():
    import re as _re

    from textleak.llm import ScriptedLM

    def respond(prompt, i, seed):
        text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
        query = text.rsplit("Input", 1)[-1]
        n = len(_re.findall(r"Claim \d+:", query))
        return "\n".join(f"- Claim {k} Similarity Rating: 2 (similar)" for k in range(1, n + 1))

    lm = ScriptedLM(respond, name="always-similar")
    r = evaluate_leakage(ORIGINALS, ORIGINALS, judge="llm", llm=lm, judge_options={"n": 1}, use_cache=False, bootstrap=0)
    assert r.semantic_privacy == pytest.approx(0.5) and r.unparsed_claims == 0
    assert r.judge["name"] == "llm" and "always-similar" in json.dumps(r.judge)
    assert lm.calls  # the model we passed is the one that judged
