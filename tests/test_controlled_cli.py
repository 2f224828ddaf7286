"""``textleak generate`` end to end on the bundled fixture with a scripted LLM."""

import json

import textleak.llm
from textleak.cli import main
from textleak.llm import ScriptedLM


def test_generate_icl_writes_records_and_metrics(tmp_path, monkeypatch):
    # the scripted model copies a real name into record 0 only: PIPP must be 1/3 exactly
    def respond(prompt, i, seed):
        return "Mr Arvid Kellerman was heard." if "Mr Arvid Kellerman" in prompt else "A new case was heard."

    lm = ScriptedLM(respond)
    monkeypatch.setattr(textleak.llm, "load_llm", lambda spec, **kw: lm)
    out = tmp_path / "syn.jsonl"
    code = main(["generate", "--data", "tab", "--split", "train", "--mode", "icl", "--no-blocking",
                 "--context-selection", "consecutive", "--num-records", "3", "--output", str(out), "--evaluate"])
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["synthetic-0", "synthetic-1", "synthetic-2"]
    metrics = json.loads((tmp_path / "syn.jsonl.metrics.json").read_text())
    assert metrics["setting"] == "icl"
    assert metrics["pipp"] == 1 / 3  # only the first window of 3 contexts holds fx-001
    assert metrics["failed_generations"] == 0
