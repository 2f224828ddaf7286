"""Hand labels (textleak.leakage.labels, textleak label, evaluate --labels): the sample, the keys,
the corrected semantic privacy beside the judge alone, the labels file and the labelling server."""

from __future__ import annotations

import csv
import json
import logging
import re
import stat
import threading
import urllib.error
import urllib.request

import pytest

from textleak.cli import main
from textleak.data.vignettes import DEMO_PATH
from textleak.io import read_records
from textleak.leakage import evaluate_leakage
from textleak.leakage.labels import claim_key, draw_sample, judged_claims, read_labels


def mangle(text: str) -> str:
    """A partial sanitizer: keeps a third of the sentences, blurs the numbers of another third."""
    parts = re.split(r"(?<=[.!?])\s+", text)
    return " ".join(s if i % 3 == 0 else (re.sub(r"\d+", "several", s) if i % 3 == 1 else "") for i, s in enumerate(parts))


@pytest.fixture(scope="module")
def demo():
    recs = read_records(str(DEMO_PATH), limit=20)
    texts = [r["text"] for r in recs]
    return texts, [mangle(t) for t in texts], [r["id"] for r in recs]


@pytest.fixture(scope="module")
def report(demo):
    texts, san, ids = demo
    return evaluate_leakage(texts, san, judge="lexical", bootstrap=200, original_ids=ids)


def harsh(claim) -> int:
    """A labeller stricter than the lexical judge: a claim it calls similar is the same to them."""
    return 1 if claim.rating in (1, 2) else 3


def test_judged_claims_carry_the_reports_weights(report):
    claims = judged_claims(report.records)
    assert sum(c.weight for c in claims) == pytest.approx(1.0)
    assert sum(c.weight * c.score for c in claims) == pytest.approx(report.semantic_privacy)
    assert {c.rating for c in claims} == {1, 2, 3}
    assert all(c.released for c in claims)  # the released text a labeller reads is in the records


def test_sample_is_seeded_and_covers_every_rating(report):
    claims = judged_claims(report.records)
    a, b = draw_sample(claims, 40, seed=3), draw_sample(claims, 40, seed=3)
    assert [c.key for c in a] == [c.key for c in b] and len({c.key for c in a}) == 40
    assert {c.rating for c in a} == {1, 2, 3}
    assert [c.key for c in draw_sample(claims, 40, seed=4)] != [c.key for c in a]


def test_key_changes_with_the_claim_or_the_released_text():
    k = claim_key("r1", 2, "She is 25.", "released")
    assert k != claim_key("r1", 2, "She is 26.", "released") and k != claim_key("r1", 2, "She is 25.", "other")
    assert k != claim_key("r1", 3, "She is 25.", "released") and k == claim_key("r1", 2, "She is 25.", "released")


def test_labels_correct_the_judge_and_report_its_agreement(demo, report):
    texts, san, ids = demo
    claims = judged_claims(report.records)
    sample = draw_sample(claims, 60, seed=0)
    labels = {c.key: harsh(c) for c in sample}
    corrected = evaluate_leakage(texts, san, judge="lexical", bootstrap=200, original_ids=ids, labels=labels)
    lab = corrected.labelled
    assert lab["n_labels"] == 60 and lab["n_unmatched"] == 0
    assert lab["judge_alone"]["semantic_privacy"] == pytest.approx(report.semantic_privacy)
    assert lab["judge_alone"]["ci95"] == report.ci95["semantic_privacy"]
    truth = sum(c.weight * (harsh(c) - 1) / 2 for c in claims)  # the harsh labeller on every claim
    assert truth < report.semantic_privacy - 0.05
    assert lab["semantic_privacy"] == pytest.approx(truth, abs=0.03)
    assert lab["ci95"][0] <= truth <= lab["ci95"][1]
    assert lab["agreement"]["lean"] > 0  # the judge's mean lies above the labels'
    assert sum(map(sum, lab["agreement"]["confusion"])) == 60
    assert "labelled" in corrected.summary()


def test_labels_that_no_longer_match_are_one_warning_and_unused(demo, report, caplog):
    texts, san, ids = demo
    sample = draw_sample(judged_claims(report.records), 30, seed=0)
    labels = {c.key: 3 for c in sample} | {"gone#0#abc#def": 1, "gone#1#abc#def": 1}
    with caplog.at_level(logging.WARNING, logger="textleak.leakage.labels"):
        lab = evaluate_leakage(texts, san, judge="lexical", bootstrap=0, original_ids=ids, labels=labels).labelled
    assert lab["n_labels"] == 30 and lab["n_unmatched"] == 2
    warnings = [r for r in caplog.records if "match no judged claim" in r.getMessage()]
    assert len(warnings) == 1 and "2 of 32 labels" in warnings[0].getMessage()


def test_metric_takes_labels(demo, report):
    from textleak.metrics import SemanticLeakage

    texts, san, ids = demo
    sample = draw_sample(judged_claims(report.records), 30, seed=1)
    labels = {c.key: harsh(c) for c in sample}
    out = SemanticLeakage(judge="lexical", bootstrap=0).compute(predictions=san, references=texts, original_ids=ids, labels=labels)
    assert out["labelled"]["n_labels"] == 30
    assert out["labelled"]["semantic_privacy"] < out["semantic_privacy"]


def test_read_labels_rejects_a_bad_row_naming_the_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"key": "a", "label": 2}\n{"key": "b", "label": 5}\n')
    with pytest.raises(ValueError, match=r"labels.jsonl:2: label 5"):
        read_labels(path)
    path.write_text('{"key": "a", "label": 2}\n{"key": "b", "label": null}\n{"key": "a", "label": 3}\n')
    assert read_labels(path) == {"a": 3, "b": None}


@pytest.fixture()
def evaluated(tmp_path, demo):
    texts, san, ids = demo
    originals = tmp_path / "orig.jsonl"
    originals.write_text("".join(json.dumps({"id": i, "text": t, "sanitized": s}) + "\n" for i, t, s in zip(ids, texts, san)))
    out = tmp_path / "out"
    args = ["evaluate", "--originals", str(originals), "--sanitized-column", "sanitized", "--judge", "lexical",
            "--bootstrap", "200", "--output", str(out), "--no-progress"]
    assert main(args) == 0
    return out, args


def test_cli_export_import_plan_then_evaluate_with_labels(evaluated, tmp_path, capsys):
    out, args = evaluated
    sheet = tmp_path / "sheet.csv"
    assert main(["label", str(out), "--n", "50", "--export", str(sheet)]) == 0
    assert stat.S_IMODE(sheet.stat().st_mode) == 0o600
    rows = list(csv.DictReader(sheet.open()))
    assert len(rows) == 50 and all(r["claim"] and r["released_text"] for r in rows)
    (records_file,) = out.glob("records-*.jsonl")  # named after the sanitized set
    claims = {c.key: c for c in judged_claims([json.loads(l) for l in records_file.read_text().splitlines()])}
    for r in rows:
        r["label"] = str(harsh(claims[r["key"]]))
    rows[0]["label"] = ""  # skipped
    with sheet.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows + [{**rows[1], "key": "someone#9#else#0000"}])
    capsys.readouterr()
    assert main(["label", str(out), "--n", "50", "--import", str(sheet)]) == 0
    assert "49 labels taken" in capsys.readouterr().out
    labels_file = out / records_file.name.replace("records-", "labels-", 1)
    assert stat.S_IMODE(labels_file.stat().st_mode) == 0o600 and len(read_labels(labels_file)) == 49

    assert main(["label", str(out), "--plan", "--width", "0.2"]) == 0
    plan = capsys.readouterr().out
    assert "expected 95% interval width" in plan and "for a width of 0.20" in plan

    assert main(args + ["--labels", str(labels_file)]) == 0
    printed = capsys.readouterr().out
    m = re.search(r"semantic privacy (\d\.\d\d) \[(\d\.\d\d), (\d\.\d\d)\] with 49 labels \(judge alone (\d\.\d\d) \[", printed)
    assert m, printed
    assert float(m.group(1)) < float(m.group(4))  # the harsh labels pull it down
    assert "Spearman" in printed and "lean +" in printed
    (row,) = json.loads((out / "report.json").read_text())["results"]
    assert row["labelled"]["n_labels"] == 49 and row["labelled"]["agreement"]["lean"] > 0


def test_label_needs_a_sanitizer_when_the_folder_holds_several(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["evaluate", "--judge", "lexical", "--limit", "6", "--sanitizer", "identity,remove_all", "--output", str(out),
                 "--bootstrap", "0", "--no-progress"]) == 0
    assert main(["label", str(out), "--plan"]) == 2
    assert "pick one with --sanitizer" in capsys.readouterr().err


def test_server_needs_the_token_and_saves_each_answer(evaluated):
    from textleak.commands.label import Session, choose_run, find_runs, make_server

    out, _ = evaluated
    session = Session.open(choose_run(find_runs(out), None), 10, 0)
    server = make_server(session)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert b"Does the released text state this claim?" in urllib.request.urlopen(base + "/").read()
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "/api/state")
        assert err.value.code == 403
        key = session.items[0].key
        req = urllib.request.Request(base + "/api/label", data=json.dumps({"key": key, "label": 2}).encode(),
                                     headers={"X-Token": session.token, "Content-Type": "application/json"})
        assert json.loads(urllib.request.urlopen(req).read())["labelled"] == 1
        bad = urllib.request.Request(base + "/api/label", data=json.dumps({"key": key, "label": 7}).encode(),
                                     headers={"X-Token": session.token})
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(bad)
    finally:
        server.shutdown()
        server.server_close()
    labels_file = session.run.labels_path
    assert labels_file.parent == out and labels_file.name.startswith("labels-")
    assert read_labels(labels_file) == {key: 2}
    assert stat.S_IMODE(labels_file.stat().st_mode) == 0o600


def test_an_unparsed_claim_stays_leaked_whatever_its_label(caplog):
    """Fail toward leakage: an unparsed claim counts as leaked in the report, and a label saying it is
    unsupported does not make the corrected figure better (it is counted and warned)."""
    from textleak.leakage.labels import corrected_privacy

    def claim(text, rating, status="ok"):
        score = None if rating is None else (rating - 1) / 2
        return {"text": text, "known": False, "rating": rating, "score": score, "status": status}

    records = [{"index": i, "id": f"r{i}", "privacy": None, "linked_text": f"released {i}",
                "claims": [claim(f"c{i}a", 1), claim(f"c{i}b", 3), claim(f"c{i}c", 2), claim(f"c{i}d", None, "unparsed")]}
               for i in range(6)]
    for r in records:
        r["privacy"] = sum(c["score"] or 0.0 for c in r["claims"]) / 4
    claims = judged_claims(records)
    assert sum(c.weight * c.score for c in claims) == pytest.approx(records[0]["privacy"])
    labels = {c.key: c.rating for c in claims if not c.fixed}
    base = corrected_privacy(records, labels)
    unparsed_keys = [c.key for c in claims if c.fixed]
    with caplog.at_level(logging.WARNING, logger="textleak.leakage.labels"):
        more = corrected_privacy(records, labels | {k: 3 for k in unparsed_keys})
    assert more["semantic_privacy"] == pytest.approx(base["semantic_privacy"]) == pytest.approx(records[0]["privacy"])
    assert more["n_on_unparsed"] == 6 and any("could not rate" in r.getMessage() for r in caplog.records)
    drawn = draw_sample(claims, 100, 0)  # unparsed claims are never drawn: only rated claims are labelled
    assert len(drawn) == 18 and not any(c.fixed for c in drawn)


def test_a_study_folder_is_found_per_sanitizer(tmp_path, report):
    """textleak study writes <sanitizer>/records.jsonl and report.json: each is a set to label, its labels beside it."""
    from textleak.commands.label import Session, choose_run, find_runs

    for name in ("presidio", "remove_all"):
        report.write(tmp_path / name)
    runs = find_runs(tmp_path)
    assert [r.name for r in runs] == ["presidio", "remove_all"]
    run = choose_run(runs, "presidio")
    assert run.labels_path == tmp_path / "presidio" / "labels.jsonl" and run.unparsed == "leak"
    assert len(Session.open(run, 20, 0).items) == 20
    with pytest.raises(ValueError, match="no sanitized set 'nope'"):
        choose_run(runs, "nope")


def test_study_reads_the_labels_beside_its_records_into_report_html(tmp_path):
    """A study folder labelled with textleak label: the next (resumed) study run reports the corrected
    figure and the judge's agreement, in its rows and in report.html."""
    from textleak.commands.label import Session, choose_run, find_runs
    from textleak.leakage import LeakageConfig
    from textleak.study import StudyConfig, run_study

    cfg = StudyConfig(dataset="demo", limit=12, sanitizers=["identity"], utility=False, linkage_ablation=False,
                      output=str(tmp_path / "s"), leakage=LeakageConfig(judge="lexical", bootstrap=100))
    first = run_study(cfg, progress=False)["rows"][0]
    assert first["labelled"] is None
    session = Session.open(choose_run(find_runs(tmp_path / "s"), "identity"), 30, 0)
    for k, c in enumerate(session.items):
        session.set(c.key, 3 if k % 2 else c.rating)  # a labeller who finds half the claims unsupported
    row = run_study(cfg, progress=False)["rows"][0]
    assert row["labelled"]["n_labels"] == 30 and row["labelled"]["semantic_privacy"] > first["semantic_privacy"]
    page = (tmp_path / "s" / "report.html").read_text()
    assert "Corrected by hand labels" in page and "id='labelled'" in page
