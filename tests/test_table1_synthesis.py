"""table1.py's synthesis rows per dataset (no training here): a synthesis run is marked as measured on the
table's records only when its digest of the private texts matches, and synthesis_table2.py reads PUPA's CSV
as table1.py does, keeping the run folders of the runs made before its new options."""

import csv
import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

FIXTURE = Path(__file__).resolve().parent.parent / "textleak" / "data" / "fixtures" / "wildchat_pupa.csv"


def _queries(n):
    with open(FIXTURE, encoding="utf-8", newline="") as f:
        return [r["user_query"] for r in csv.DictReader(f)][:n]


def test_pupa_records_are_table1s_and_old_keys_stay():
    import synthesis_table2 as st

    records = st.load_records([str(FIXTURE)], limit=4)
    assert [r["text"] for r in records] == _queries(4)
    assert records[0]["category"] == "healthcare information"
    assert st.records_digest(_queries(4)) == st.records_digest([r["text"] for r in records])
    assert st.records_digest(_queries(4)) != st.records_digest(_queries(5))
    # the defaults add nothing to the key: earlier MedQA runs resume from their folders and results
    old = st.parse_args([])
    assert "limit" not in st.training_key(old) and "control_code" not in st.training_key(old)
    new = st.parse_args(["--limit", "4", "--control-code", "none"])
    assert st.training_key(new)["limit"] == 4 and st.run_dir(new, "3") != st.run_dir(old, "3")


def _synthesis(path, texts, digest_of):
    import synthesis_table2 as st

    path.write_text(json.dumps({
        "argv": ["--rows", "3"], "n_records": len(texts), "by_file": {"PUPA_TNB.csv": len(texts)},
        "records_sha256": st.records_digest(digest_of), "control_code": "none", "judge": {"adapter_sha256": "abc", "rules_version": "r2"},
        "rows": {"none": {"lexical_privacy": 0.0, "semantic_privacy": 0.05},
                 "3": {"semantic_privacy": 0.9, "lexical_privacy": 0.8, "n_records": len(texts), "n_synthetic": len(texts),
                       "ci95": {"semantic_privacy": [0.85, 0.95]}, "evaluate_s": 3.0}}}))


@pytest.mark.parametrize("same", [True, False])
def test_synthesis_rows_marked_by_records(tmp_path, monkeypatch, same):
    import table1

    texts = _queries(4)
    (tmp_path / "pupa").mkdir()
    shutil.copy(FIXTURE, tmp_path / "pupa" / "PUPA_TNB.csv")
    monkeypatch.setattr(table1, "SHARED", tmp_path)
    row = {"semantic_privacy": 0.4, "semantic_ci95": [0.3, 0.5], "lexical_privacy": 0.2, "linkage_rate": 1.0,
           "claims_per_record": 5.0, "by_type": {}, "judge_adapter": "abc", "seconds": 1.0}
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"command": "python benchmarks/table1.py --records 4", "records_by_dataset": {"pupa": 4},
                                   "tables": {"pupa": {"identity": row}}}))
    synth = tmp_path / "synth.json"
    _synthesis(synth, texts, texts if same else _queries(5))
    out = tmp_path / "t1"
    table1.main(["--records", "4", "--datasets", "pupa", "--tables-from", str(earlier), "--synthesis-pupa", str(synth),
                 "--out", str(out)])
    md = out.with_suffix(".md").read_text()
    assert "| synthesis, ε = 3 ‡ | 0.800 | 0.900 [0.85, 0.95] |" in md
    assert "measured by `python benchmarks/table1.py --records 4`" in md
    assert ("Measured on the same 4 records" in md) is same
    assert ("not the records above" in md) is (not same)
    assert "adapter abc (the same as the rows above), value rules r2 (the rows above: not recorded)" in md
