"""Control codes, fictional codes, TAB/presidio loaders and ICL prompting, offline (ScriptedLM)."""

import re

import pytest

from textleak.controlled.control_codes import (
    ControlCode,
    code_from_mentions,
    coded_record,
    compact_lines,
    marker_mentions,
)
from textleak.controlled.fictional import FictionalCodeGenerator
from textleak.controlled.generator import ControlledGenerator
from textleak.controlled.icl import ICLGenerator, case_variants
from textleak.data.tab import FIXTURE_PATH, paragraph_segment, read_tab, tab_records
from textleak.llm import ScriptedLM


def m(etype, text, s, idtype="DIRECT"):
    return {"entity_type": etype, "start_offset": s, "end_offset": s + len(text), "span_text": text, "identifier_type": idtype}


# ---- control codes ------------------------------------------------------------------------------
def test_control_code_lines_sorted_deduplicated_types_in_first_occurrence_order():
    mentions = [m("CODE", "12/34", 0), m("PERSON", "Mr Zed Ray", 10), m("PERSON", "Ms Ann Lee", 30),
                m("PERSON", "Mr Zed Ray", 50), m("DATETIME", "1 May 2001", 70, "QUASI"), m("MISC", "asthma", 90)]
    assert code_from_mentions(mentions).render() == "CODE: 12/34\nPERSON: Mr Zed Ray, Ms Ann Lee\nMISC: asthma"
    both = code_from_mentions(mentions, ("DIRECT", "QUASI"))
    assert both.types == ["CODE", "PERSON", "DATETIME", "MISC"]
    assert ControlCode.parse(both.render()) == both


def test_compact_lines_keeps_offsets_exact():
    text = "HEAD\n\n  Ann Lee met\n\nBob.  \n"
    ms = [m("PERSON", "Ann Lee", 8), m("PERSON", "Bob", 21)]
    new, moved = compact_lines(text, ms)
    assert new == "HEAD\nAnn Lee met\nBob."
    assert [new[x["start_offset"]:x["end_offset"]] for x in moved] == ["Ann Lee", "Bob"]


def test_coded_record_marks_unannotated_repeats_as_private():
    text = "Ann Lee came. Later ann lee left."
    rec = coded_record("r", text, [m("PERSON", "Ann Lee", 0)])
    assert [text[s:e] for s, e in rec.private_spans] == ["Ann Lee", "ann lee"]


def test_mimic_markers_become_typed_codes():
    text = "Seen at [**Hospital 18**] by [**Known lastname 123**] on [**2101-10-20**]."
    code = code_from_mentions(marker_mentions(text))
    assert code.render() == "HOSPITAL: [**Hospital 18**]\nKNOWN_LASTNAME: [**Known lastname 123**]\nDATE: [**2101-10-20**]"


# ---- fictional codes ----------------------------------------------------------------------------
def test_fictional_codes_are_seeded_patterned_and_skip_misc():
    gen = FictionalCodeGenerator(seed=7)
    types = ["CODE", "PERSON", "DATETIME", "LOC", "ORG", "DEM", "QUANTITY", "MISC"]
    a, b = gen.generate(types, index=3), FictionalCodeGenerator(seed=7).generate(types, index=3)
    assert a == b and a != gen.generate(types, index=4)
    values = dict((t, v[0]) for t, v in a.entries)
    assert "MISC" not in values and len(values) == 7
    assert re.fullmatch(r"[A-Z0-9]{5}/[A-Z0-9]{2}", values["CODE"])
    assert re.fullmatch(r"(Mr|Ms|Dr|Prof) \w+ \w+", values["PERSON"])
    assert re.fullmatch(r"\d\d [A-Z][a-z]+ (199\d|20[0-2]\d)", values["DATETIME"])
    assert re.fullmatch(r"\d{1,3}%|\$[\d,]+", values["QUANTITY"])


def test_fictional_codes_avoid_real_values_and_faker_source_is_seeded():
    gen = FictionalCodeGenerator(seed=0)
    drawn = {gen.generate(["ORG"], index=i).values()[0] for i in range(40)}
    avoid = sorted(drawn)[:9]  # nine of the ten organisations
    assert all(gen.generate(["ORG"], index=i, avoid=avoid).values()[0] not in avoid for i in range(20))
    fk = FictionalCodeGenerator(seed=1, source="faker")
    assert fk.generate(["PERSON", "LOC"], 0) == FictionalCodeGenerator(seed=1, source="faker").generate(["PERSON", "LOC"], 0)


# ---- data ---------------------------------------------------------------------------------------
def test_tab_fixture_schema_and_offsets():
    docs = read_tab()
    assert 12 <= len(docs) <= 20
    records = tab_records()  # raises if any span_text differs from text[start:end]
    idtypes = {x["identifier_type"] for r in records for x in r["entity_mentions"]}
    assert {"DIRECT", "QUASI", "NO_MASK"} <= idtypes
    types = {x["entity_type"] for r in records for x in r["entity_mentions"]}
    assert types == {"PERSON", "CODE", "LOC", "ORG", "DEM", "DATETIME", "QUANTITY", "MISC"}
    two = [d for d in docs if len(d["annotations"]) == 2]
    assert [d["doc_id"] for d in two] == ["fx-001", "fx-004"]
    with pytest.raises(KeyError, match="fx-002 has no annotator 'annotator2'"):
        tab_records(annotator="annotator2")  # a named annotator must exist in every document


def test_tab_annotator_choice_changes_the_code():
    first = ControlledGenerator().prepare(tab_records(FIXTURE_PATH)[:1])[0]
    doc = read_tab()[0]
    second = code_from_mentions(doc["annotations"]["annotator2"]["entity_mentions"])
    assert "DATETIME" not in first.code.types
    assert "DATETIME" in second.types  # annotator2 marks dates DIRECT


def test_tab_rejects_wrong_offsets(tmp_path):
    import json

    docs = read_tab()[:1]
    docs[0]["annotations"]["annotator1"]["entity_mentions"][0]["start_offset"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(docs))
    with pytest.raises(ValueError, match="fx-001"):
        tab_records(bad)


def test_paragraph_segment_rebases_offsets():
    text = "P0\nP1 Ann\n\nP2 Bob\nP3"
    seg, ms = paragraph_segment(text, [m("PERSON", "Ann", 6), m("PERSON", "Bob", 14)], 1, 3)
    assert seg == "P1 Ann\n\nP2 Bob"
    assert [seg[x["start_offset"]:x["end_offset"]] for x in ms] == ["Ann", "Bob"]


def test_presidio_synth_loader(shared_data):
    from textleak.data.presidio_synth import presidio_synth_records

    recs = presidio_synth_records(shared_data / "presidio_synth" / "generated_small.json")
    assert len(recs) == 100
    for r in recs:
        for x in r["entity_mentions"]:
            assert r["text"][x["start_offset"]:x["end_offset"]] == x["span_text"]
    assert {x["entity_type"] for r in recs for x in r["entity_mentions"]} <= {"PERSON", "LOC", "ORG", "DATETIME", "DEM", "CODE"}


# ---- ICL ----------------------------------------------------------------------------------------
class RecordingLM(ScriptedLM):
    def __init__(self, responder):
        super().__init__(responder)
        self.params = []

    def _generate(self, prompts, params, seeds):
        self.params.append(params)
        return super()._generate(prompts, params, seeds)


def fixture_records(n=5):
    return ControlledGenerator().prepare(tab_records()[:n])


def test_icl_prompt_layout_and_banned_phrases():
    lm = RecordingLM(lambda p, i, s: "The applicant lives in Springfield.\n\nCODE: X")
    records = fixture_records()
    icl = ICLGenerator(lm, context_selection="consecutive", max_new_tokens=20)
    out = icl.generate(records, 2, seed=0)
    prompt = lm.calls[0]
    first = records[0]
    assert prompt.startswith(f"{first.code.render()}\n{first.text}\n\n")
    assert prompt.count("\n\n") == 3
    fictional = out[0]["control_code"]
    assert prompt.endswith(f"\n\n{fictional}\n") and "CODE:" in fictional
    assert out[0]["text"] == "The applicant lives in Springfield."  # cut at the blank-line stop
    assert out[0]["context_ids"] == [r.id for r in records[:3]]
    assert out[1]["context_ids"] == [records[3].id, records[4].id, records[0].id]
    banned = set(lm.params[0].banned_phrases)
    for value in out[0]["private_entities"]:
        assert set(case_variants(value)) <= banned
    assert "Mr Arvid Kellerman" in out[0]["private_entities"]
    assert out[0]["references"] == [r.text for r in records[:3]]


def test_icl_sampled_contexts_are_seeded_and_distinct():
    icl = ICLGenerator(ScriptedLM(lambda p, i, s: "x"))
    records = fixture_records(8)
    a = [icl.contexts_for(records, i, 5) for i in range(4)]
    assert a == [icl.contexts_for(records, i, 5) for i in range(4)]
    assert all(len({c.id for c in ctx}) == 3 for ctx in a)


def test_baseline_icl_has_no_codes_and_no_blocking():
    lm = RecordingLM(lambda p, i, s: "text")
    gen = ControlledGenerator(model=lm, mode="baseline_icl").fit(tab_records()[:4])
    out = gen.generate(num_records=1)
    assert "PERSON:" not in lm.calls[0] and lm.calls[0].endswith("\n\n")
    assert lm.params[0].banned_phrases == ()
    assert out["private_entities"][0]  # leakage is still measured against the contexts' codes


def test_regeneration_until_clean_and_leaks_stay_visible():
    records = fixture_records()
    leaky = "Mr Arvid Kellerman again."
    answers = iter([leaky, "clean text"])
    lm = ScriptedLM(lambda p, i, s: next(answers))
    out = ICLGenerator(lm, context_selection="consecutive", max_regenerations=2).generate(records, 1)
    assert out[0]["attempts"] == 2 and out[0]["generation_status"] == "ok" and out[0]["text"] == "clean text"
    stubborn = ICLGenerator(ScriptedLM(lambda p, i, s: leaky), context_selection="consecutive", max_regenerations=1)
    out = stubborn.generate(records, 1)
    assert out[0]["generation_status"] == "leaked" and out[0]["text"] == leaky and out[0]["attempts"] == 2


def test_icl_batches_generations_that_share_a_banned_list_and_keeps_per_record_seeds():
    """Without blocking, all prompts go to the backend in one call (it can batch them); with
    blocking, each call carries only its own contexts' values. Either way record i's text depends
    only on (seed, i): a run of 4 records starts with the 2 records of a run of 2."""
    records = fixture_records(6)
    plain = RecordingLM(lambda p, i, s: f"text {s % 1000}")
    four = ICLGenerator(plain, block_private=False, max_new_tokens=20).generate(records, 4, seed=3)
    # one call per distinct stop list (the contexts' entity types), not one per record
    assert len(plain.params) == len({p.stop for p in plain.params}) < 4 and len(plain.calls) == 4
    assert all(p.banned_phrases == () for p in plain.params)
    two = ICLGenerator(RecordingLM(lambda p, i, s: f"text {s % 1000}"), block_private=False,
                       max_new_tokens=20).generate(records, 2, seed=3)
    assert [r["text"] for r in four[:2]] == [r["text"] for r in two]
    assert len({r["text"] for r in four}) == 4  # different seeds per record
    lm = RecordingLM(lambda p, i, s: "clean")
    out = ICLGenerator(lm, block_private=True, context_selection="consecutive").generate(records, 2, seed=0)
    assert len(lm.params) == 2
    for params, rec in zip(lm.params, out):
        assert {v.casefold() for v in params.banned_phrases} == {v.casefold() for p in rec["private_entities"]
                                                                 for v in case_variants(p)}


def test_failed_generation_is_reported_not_scored():
    out = ICLGenerator(ScriptedLM(lambda p, i, s: None)).generate(fixture_records(), 1)
    assert out[0]["text"] is None and out[0]["generation_status"] == "failed"


@pytest.mark.slow
def test_presidio_codes_for_unannotated_text():
    from textleak.controlled.control_codes import presidio_mentions

    text = "John Smith moved to London on 3 May 2001. Call 212-555-0198."
    (mentions,) = presidio_mentions([text])
    code = code_from_mentions(mentions)
    assert "John Smith" in code.values(["PERSON"])
    assert "London" in code.values(["LOC"])
    for x in mentions:
        assert text[x["start_offset"]:x["end_offset"]] == x["span_text"]


def test_deid_markers_as_codes_and_annotations_kept_for_evaluation():
    notes = [{"id": str(k), "text": f"Pt seen at [**Hospital {k}**] by Dr Roe on [**2101-10-2{k}**].",
              "entity_mentions": [{"entity_type": "PERSON", "start_offset": 0, "end_offset": 0, "span_text": "",
                                   "identifier_type": "DIRECT"}]} for k in range(4)]
    for n in notes:  # the hand annotation marks "Dr Roe", which the markers do not cover
        s = n["text"].index("Dr Roe")
        n["entity_mentions"][0].update(start_offset=s, end_offset=s + 6, span_text="Dr Roe")
    lm = RecordingLM(lambda p, i, s: "Pt seen at [**Hospital 9**].")
    gen = ControlledGenerator(model=lm, mode="icl", context_selection="consecutive").fit(notes, entities="deid_markers")
    assert gen.records[0].code.render() == "HOSPITAL: [**Hospital 0**]\nDATE: [**2101-10-20**]"
    out = gen.generate(num_records=1)
    assert out["annotated_entities"][0] == ["Dr Roe"]
    assert "[**Hospital 0**]" in out["private_entities"][0]
    assert lm.calls[0].endswith("\n") and "HOSPITAL: Hospital" in lm.calls[0]  # fictional value for a MIMIC type
