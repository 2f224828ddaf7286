"""Dataset builders: schema, configs, deterministic splits, code-hash cache invalidation, Hub sources
configured but never contacted, bring-your-own, parquet export and the `textleak data` command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import datasets
import pytest
import yaml

from textleak import data
from textleak.data import _builder
from textleak.data._builder import in_test_split, label_index
from textleak.data.wildchat import WILDCHAT_CATEGORIES

REPO = Path(__file__).resolve().parent.parent

EXPECTED_HUB = {
    ("medqa", "default"): ("GBaker/MedQA-USMLE-4-options", None),
    ("wildchat", "pupa_tnb"): ("Columbia-NLP/PUPA", None),
    ("wildchat", "wildchat_1m"): ("allenai/WildChat-1M", None),
    ("sst2", "default"): ("nyu-mll/glue", "sst2"),
    ("qnli", "default"): ("nyu-mll/glue", "qnli"),
    ("ag_news", "default"): ("fancyzhx/ag_news", None),
    ("yelp", "polarity"): ("fancyzhx/yelp_polarity", None),
    ("yelp", "full"): ("Yelp/yelp_review_full", None),
}
FIXTURE_SHAPES = {
    "medqa": {"train": 5, "test": 3},
    "wildchat": {"train": 10},
    "tab": {"train": 11, "test": 3},
    "sst2": {"train": 12, "validation": 4},
    "qnli": {"train": 4, "validation": 2},
    "ag_news": {"train": 8, "test": 4},
    "yelp": {"train": 6, "test": 4},
}


@pytest.fixture(autouse=True)
def _no_hub(monkeypatch):
    """Any attempt to read the Hub fails the test."""

    def refuse(*a, **k):
        raise AssertionError(f"a test contacted the Hub: load_dataset{a}")

    monkeypatch.setattr(datasets, "load_dataset", refuse)


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


def test_list_datasets_names_every_builder():
    assert data.list_datasets() == ["ag_news", "byo", "medqa", "qnli", "sst2", "tab", "wildchat", "yelp"]
    assert data.resolve_name("SST-2") == ("sst2", None)
    assert data.resolve_name("pupa") == ("wildchat", "pupa_tnb")
    with pytest.raises(KeyError, match="unknown dataset 'nope'"):
        data.resolve_name("nope")


@pytest.mark.parametrize("name", sorted(FIXTURE_SHAPES))
def test_fixture_config_schema_and_determinism(name, cache):
    ds = data.load(name, "fixture", cache_dir=cache)
    assert {k: v.num_rows for k, v in ds.items()} == FIXTURE_SHAPES[name]
    for split in ds.values():
        assert split.column_names[:2] == ["id", "text"]
        assert split.features["id"].dtype == "string" and split.features["text"].dtype == "string"
        assert len(set(split["id"])) == split.num_rows
        assert all(isinstance(t, str) and t for t in split["text"])
    again = data.load(name, "fixture", cache_dir=cache / "other")
    assert {k: v.to_list() for k, v in ds.items()} == {k: v.to_list() for k, v in again.items()}


def test_medqa_fixture_profile_excludes_the_question(cache):
    rec = data.load("medqa", "fixture", split="test", cache_dir=cache)[0]
    assert rec["id"] == "mq-f06"
    assert rec["text"] == ("A 29-year-old woman at 32 weeks' gestation has headaches and blurry vision. "
                           "Her blood pressure is 168/112 mm Hg. Urinalysis shows 3+ protein.")
    assert rec["question"] == "Which of the following is the most appropriate drug to prevent seizures?"
    assert list(rec["options"]) == ["A", "B", "C", "D"] and rec["answer_idx"] == "C"


def test_classification_labels_are_classlabels(cache):
    sst = data.load("sst2", "fixture", split="validation", cache_dir=cache)
    assert sst.features["label"].names == ["negative", "positive"]
    assert sst["label"] == [1, 0, 1, 0]
    ag = data.load("ag_news", "fixture", split="train", cache_dir=cache)
    assert ag.features["label"].names == ["World", "Sports", "Business", "Sci/Tech"]
    assert ag[1] == {"id": "train-1", "text": "Rovers win the cup final A late goal gave the Rovers a 2-1 win in Saturday's final.", "label": 1}
    qnli = data.load("qnli", "fixture", split="train", cache_dir=cache)
    assert qnli[1]["question"] == "Who designed the Riverton bridge?" and qnli[1]["label"] == 1
    assert label_index("3", ("a", "b", "c"), one_based_digits=True) == 2
    assert label_index(-1, ("a", "b")) == -1
    with pytest.raises(ValueError, match="out of range"):
        label_index("5", ("a", "b"))


def test_wildchat_fixture_fields(cache):
    ds = data.load("wildchat", "fixture", split="train", cache_dir=cache)
    first = ds[0]
    assert first["pii_units"] == ["st mary's clinic", "bristol"]
    assert first["pii_category"] == "healthcare information"
    assert first["redacted_text"].startswith("[REDACTED] and was just diagnosed")
    assert all(c in WILDCHAT_CATEGORIES for c in ds["task_category"])
    assert len(WILDCHAT_CATEGORIES) == 21


def test_hub_sources_are_configured_not_contacted(cache):
    for (name, config), (repo, hub_name) in EXPECTED_HUB.items():
        builder = data.get_builder(name, config, cache_dir=cache)
        assert builder.source == "hub"
        assert (builder.config.hub_repo, builder.config.hub_name) == (repo, hub_name)
    assert data.get_builder("wildchat", "pupa_tnb", cache_dir=cache).config.hub_data_files == {"train": "PUPA_TNB.csv"}
    tab = data.get_builder("tab", cache_dir=cache)
    assert tab.config.hub_repo.startswith("https://raw.githubusercontent.com/NorskRegnesentral/text-anonymization-benchmark/")
    with pytest.raises(ConnectionError, match="nyu-mll/glue.*offline"):
        data.load("sst2", cache_dir=cache)  # conftest sets HF_HUB_OFFLINE=1


def test_local_data_dir(tmp_path, cache):
    glue = tmp_path / "SST-2"
    glue.mkdir()
    (glue / "train.tsv").write_text("sentence\tlabel\ngood fun \t1\nawful \t0\n", encoding="utf-8")
    (glue / "test.tsv").write_text("index\tsentence\n0\tunknown film \n", encoding="utf-8")
    ds = data.load("sst2", data_dir=glue, cache_dir=cache)
    assert ds["train"].to_list() == [{"id": "train-0", "text": "good fun", "label": 1},
                                     {"id": "train-1", "text": "awful", "label": 0}]
    assert ds["test"][0] == {"id": "test-0", "text": "unknown film", "label": -1}
    with pytest.raises(FileNotFoundError, match="no sst2 files"):
        data.load("sst2", data_dir=tmp_path, cache_dir=cache)


def _write_jsonl(path: Path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_carved_test_split_is_deterministic_and_order_free(tmp_path, cache):
    rows = [{"id": f"r{i}", "text": f"record {i}"} for i in range(60)]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write_jsonl(a, rows)
    shuffled = rows[:]
    random.Random(3).shuffle(shuffled)
    _write_jsonl(b, shuffled)
    ds_a = data.load(a, test_size=0.3, split_seed=7, cache_dir=cache)
    ds_b = data.load(b, test_size=0.3, split_seed=7, cache_dir=cache)
    test_ids = set(ds_a["test"]["id"])
    assert test_ids == set(ds_b["test"]["id"])
    assert test_ids.isdisjoint(ds_a["train"]["id"]) and len(test_ids) + ds_a["train"].num_rows == 60
    assert test_ids == {r["id"] for r in rows if in_test_split(r["id"], 0.3, 7)}
    other_seed = data.load(a, test_size=0.3, split_seed=8, cache_dir=cache)
    assert set(other_seed["test"]["id"]) != test_ids


def test_cache_is_keyed_by_the_code_hash(tmp_path, cache, monkeypatch):
    """Same hash after a generator change serves the stale cache (the datasets pitfall); a new hash
    rebuilds, and get_builder's hash changes when the module source changes."""
    from textleak.data.sst2 import SST2

    def build(hash_):
        b = SST2(config_name="fixture", cache_dir=str(cache), dataset_name="sst2", hash=hash_)
        b.download_and_prepare()
        return b.as_dataset(split="validation")

    assert build("h1")[0]["text"] == "a funny and charming film ."
    original = SST2.to_record
    monkeypatch.setattr(SST2, "to_record", lambda self, raw, i, split: {**original(self, raw, i, split), "text": "EDITED"})
    assert build("h1")[0]["text"] == "a funny and charming film ."  # stale: same hash
    assert build("h2")[0]["text"] == "EDITED"

    h_before = data.get_builder("sst2", "fixture", cache_dir=cache).hash
    real_getsource = _builder.inspect.getsource
    monkeypatch.setattr(_builder.inspect, "getsource",
                        lambda obj: real_getsource(obj) + ("\n# edited" if obj.__name__ == "textleak.data.sst2" else ""))
    assert data.get_builder("sst2", "fixture", cache_dir=cache).hash != h_before


def test_edited_local_file_is_rebuilt(tmp_path, cache):
    f = tmp_path / "notes.jsonl"
    _write_jsonl(f, [{"id": "a", "text": "first version"}])
    assert data.load(f, split="train", cache_dir=cache)["text"] == ["first version"]
    _write_jsonl(f, [{"id": "a", "text": "second version, longer"}])
    assert data.load(f, split="train", cache_dir=cache)["text"] == ["second version, longer"]


def test_bring_your_own_formats_and_mapping(tmp_path, cache):
    import pandas as pd

    frame = pd.DataFrame({"mrn": ["p1", "p2"], "note": ["Pt Ann, 40y", "Pt Bo, 7y"], "label": [1, 0]})
    frame.to_csv(tmp_path / "n.csv", index=False)
    frame.to_parquet(tmp_path / "n.parquet")
    _write_jsonl(tmp_path / "n.jsonl", frame.to_dict("records"))
    expected = [{"id": "p1", "text": "Pt Ann, 40y", "label": 1}, {"id": "p2", "text": "Pt Bo, 7y", "label": 0}]
    for ext in ("csv", "parquet", "jsonl"):
        ds = data.load("byo", data_files=str(tmp_path / f"n.{ext}"), columns={"text": "note", "id": "mrn"},
                       split="train", cache_dir=cache)
        # textleak.io reads CSV cells as strings; JSONL and parquet keep their types
        want = [{**r, "label": str(r["label"])} for r in expected] if ext == "csv" else expected
        assert ds.to_list() == want, ext
    with pytest.raises(Exception, match="column 'body' \\(mapped to 'text'\\) is not in the file"):
        data.load(tmp_path / "n.csv", columns={"text": "body"}, cache_dir=cache)
    _write_jsonl(tmp_path / "bad.jsonl", [{"text": "ok"}, {"text": None}])
    with pytest.raises(Exception, match="row 0-1 .*text is NoneType"):
        data.load(tmp_path / "bad.jsonl", cache_dir=cache)


def test_medqa_rejects_five_options(tmp_path, cache):
    _write_jsonl(tmp_path / "test.jsonl", [{"id": "q9", "question": "A man is ill. Why?",
                                          "options": {"A": "a", "B": "b", "C": "c", "D": "d", "E": "e"},
                                          "answer_idx": "E", "answer": "e"}])
    with pytest.raises(Exception, match="MedQA record q9 has options"):
        data.load("medqa", data_dir=tmp_path, cache_dir=cache)


def test_export_parquet_matches_card_configs(tmp_path, cache):
    ds = data.load("medqa", "fixture", cache_dir=cache)
    out = data.export_parquet(ds, tmp_path / "repo", config="fixture")
    card = (REPO / "datasets" / "medqa" / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(card.split("---")[1])
    fixture_cfg = next(c for c in meta["configs"] if c["config_name"] == "fixture")
    for entry in fixture_cfg["data_files"]:
        matches = list(out.glob(entry["path"]))
        assert len(matches) == 1, entry
        roundtrip = datasets.Dataset.from_parquet(str(matches[0]))
        assert roundtrip.to_list() == ds[entry["split"]].to_list()


@pytest.mark.parametrize("name", ["medqa", "wildchat", "tab", "sst2", "ag_news", "qnli", "yelp"])
def test_dataset_cards_declare_configs(name):
    card = (REPO / "datasets" / name / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(card.split("---")[1])
    names = {c["config_name"] for c in meta["configs"]}
    assert names == set(data.config_names(name))
    assert "fixture" in names


def test_cli_list_and_prepare(tmp_path, capsys, monkeypatch):
    from textleak.cli import main

    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(tmp_path / "c"))
    assert main(["data", "list"]) == 0
    listing = capsys.readouterr().out
    assert "medqa" in listing and "GBaker/MedQA-USMLE-4-options" in listing
    assert main(["data", "prepare", "qnli", "--config", "fixture", "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "fixture" / "validation-00000-of-00001.parquet").exists()


def test_shared_samples_load(shared_data, cache):
    med = data.load("medqa", data_files={"test": str(shared_data / "medqa" / "sampled_50.jsonl")}, split="test", cache_dir=cache)
    assert med.num_rows == 50 and set(med["answer_idx"]) <= set("ABCD")
    assert all(q.rstrip("\"").endswith("?") for q in med["question"])
    pupa = data.load("pupa", data_files=str(shared_data / "pupa" / "PUPA_TNB.csv"), split="train", cache_dir=cache)
    assert pupa.num_rows == 237 and len(set(pupa["id"])) == 237
    assert sum("#" in i for i in pupa["id"]) == 40  # 70 rows share 30 conversation hashes
    sst = data.load("sst2", data_files={"validation": str(shared_data / "sst2" / "dev.tsv")}, split="validation", cache_dir=cache)
    assert sst.num_rows == 872


def test_name_colon_config_and_io_data_source(cache, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(cache))
    assert data.load("sst2:fixture", split="validation").num_rows == 4
    from textleak.io import read_records

    records = read_records("data:medqa:fixture", split="test")
    assert [r["id"] for r in records] == ["mq-f06", "mq-f07", "mq-f08"]


def test_from_spec_picks_test_split(cache, monkeypatch):
    monkeypatch.setenv("TEXTLEAK_CACHE_DIR", str(cache))
    assert data.from_spec("data:medqa:fixture")["id"] == ["mq-f06", "mq-f07", "mq-f08"]
    assert data.from_spec("sst2:fixture").num_rows == 12  # no test split: the first split (train)
    assert data.from_spec("sst2:fixture", split="validation").num_rows == 4
    with pytest.raises(ValueError, match="not 'dev'"):
        data.from_spec("sst2:fixture", split="dev")


def test_push_to_hub_pushes_parquet_privately(cache, monkeypatch):
    calls = {}

    def fake_push(self, repo_id, **kw):
        calls.update(repo_id=repo_id, splits=sorted(self), **kw)

    monkeypatch.setattr(datasets.DatasetDict, "push_to_hub", fake_push)
    assert data.push_to_hub("qnli", "me/qnli-textleak", "fixture", cache_dir=cache) == "me/qnli-textleak"
    assert calls == {"repo_id": "me/qnli-textleak", "splits": ["train", "validation"], "config_name": "fixture",
                     "private": True, "token": None}


def test_wildchat_summary_prompt_and_failures():
    from textleak.data.wildchat import summarize_conversations, summary_messages
    from textleak.llm import ScriptedLM

    msgs = summary_messages("I am 41 and live in Bristol.", "Noted.")
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert "£950 deposit" in msgs[1]["content"]  # the one-shot demo's summary
    assert msgs[2]["content"].endswith("Conversation:\nUser: I am 41 and live in Bristol.\nChatbot: Noted.")
    replies = iter(["The user is 41 and lives in Bristol.", "   "])
    out = summarize_conversations(ScriptedLM(lambda p, i, s: next(replies)), ["I am 41 and live in Bristol.", "hi"])
    assert out == ["The user is 41 and lives in Bristol.", None]


def test_delegated_reader_code_is_part_of_the_hash(cache, monkeypatch):
    """TAB records come from textleak.data.tab: editing that module must rebuild too."""
    h_before = data.get_builder("tab", "fixture", cache_dir=cache).hash
    real_getsource = _builder.inspect.getsource
    monkeypatch.setattr(_builder.inspect, "getsource",
                        lambda obj: real_getsource(obj) + ("\n# edited" if obj.__name__ == "textleak.data.tab" else ""))
    assert data.get_builder("tab", "fixture", cache_dir=cache).hash != h_before
