"""Identity / RemoveAll and the Sanitizer contract they share: map batching, columns, bad input."""

from __future__ import annotations

import datasets
import pytest

from sanitizers import Identity, RemoveAll
from textleak.registry import sanitizers as registry
from textleak.sanitize.base import STATUS_EMPTY_INPUT, STATUS_TOO_LONG, create_sanitizer, screen_text


def _ds():
    return datasets.Dataset.from_dict({"id": ["a", "b", "c"], "text": ["Jane, 41, nurse.", "Bob lives in Oslo.", ""],
                                       "question": ["q1", "q2", "q3"]})


def test_identity_map_keeps_columns_and_text():
    out = _ds().map(Identity(), batched=True, input_columns="text", with_indices=True)
    assert out.column_names == ["id", "text", "question", "sanitized", "sanitize_status"]
    assert out["sanitized"] == out["text"]
    assert out["sanitize_status"] == ["ok", "ok", "ok"]


def test_remove_all_empties_text_keeps_task_fields():
    out = _ds().map(RemoveAll(output_column="clean"), batched=True, input_columns="text", with_indices=True)
    assert out["clean"] == ["", "", ""]
    assert out["question"] == ["q1", "q2", "q3"]
    assert out["text"][0] == "Jane, 41, nurse."


def test_single_text_call():
    assert Identity()("x y") == {"sanitized": "x y", "sanitize_status": "ok"}


@pytest.mark.parametrize("bad", [None, 3, b"bytes"])
def test_non_string_record_is_a_clear_error(bad):
    with pytest.raises(TypeError, match=r"record 7 is"):
        Identity()(["ok", bad], [6, 7])


def test_screen_text_policy():
    assert screen_text("   \n", 10).status == STATUS_EMPTY_INPUT
    assert screen_text("   \n", 10).text == ""
    long = screen_text("x" * 11, 10)
    assert long.status == STATUS_TOO_LONG and long.text is None
    assert screen_text("x" * 10, 10) is None
    assert screen_text("x" * 10**6, None) is None


def test_registry_names_resolve_to_these_classes():
    assert registry.get("identity") is Identity
    assert registry.get("remove_all") is RemoveAll
    assert isinstance(create_sanitizer("identity", output_column="o"), Identity)
    with pytest.raises(ValueError, match="no option"):
        create_sanitizer("identity", operator="mask")
    with pytest.raises(ValueError, match="does not use an LLM"):
        create_sanitizer("identity", llm="embedded")


def test_num_proc_two_matches_one():
    ds = datasets.Dataset.from_dict({"text": [f"record {i}" for i in range(20)]})
    one = ds.map(RemoveAll(), batched=True, batch_size=3, input_columns="text", with_indices=True, load_from_cache_file=False)
    two = ds.map(RemoveAll(), batched=True, batch_size=7, input_columns="text", with_indices=True, num_proc=2,
                 load_from_cache_file=False)
    assert one["sanitized"] == two["sanitized"] and one["sanitize_status"] == two["sanitize_status"]
