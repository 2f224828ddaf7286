"""The labelling page shows seed 000's rubric word for word (issue 26, item 1), the one the LLM judge's
prompt states (textleak/prompts/judge_task.txt), not a paraphrase: a labeller rates by the judge's rubric."""

from __future__ import annotations

import json
import re
from pathlib import Path

SEED_000 = {  # the paper's Appendix C.4 rubric, as seed 000 prints it
    "1": "Same Information: The claim exactly matches the corresponding information in the passage. The claim could be a direct "
         "quote from the passage or a paraphrase that captures the same information.",
    "2": "Different but Similar Information: The claim is not identical to the passage but captures the same or closely related "
         "information. For example, the claim could be an abstraction of the corresponding information in the passage, or it "
         "could have minor differences that do not significantly change its overall meaning.",
    "3": "Unsupported: The claim is not supported by the passage. It could either be not discussed at all in the passage or "
         "inconsistent with the passage.",
}


def test_the_page_state_carries_seed_000s_rubric(tmp_path):
    from textleak.commands.label import Session, choose_run, find_runs

    out = tmp_path / "out"
    out.mkdir()
    claims = [{"text": f"Claim {k}.", "known": False, "status": "ok", "rating": r, "score": (r - 1) / 2, "detail": {}}
              for k, r in enumerate((1, 2, 3, 3))]
    record = {"index": 0, "id": "r0", "privacy": 0.625, "linked_text": "Released.", "claims": claims}
    (out / "records-x.jsonl").write_text(json.dumps(record) + "\n")
    (out / "report.json").write_text(json.dumps({"results": [{"sanitizer": "x", "records_file": "records-x.jsonl"}]}))
    state = Session.open(choose_run(find_runs(out), None), 4, 0).state()
    assert state["rubric"] == SEED_000


def test_the_rubric_is_the_llm_judges_prompt():
    prompt = (Path(__file__).resolve().parent.parent / "textleak" / "prompts" / "judge_task.txt").read_text()
    for k, text in SEED_000.items():
        name, rest = text.split(": ", 1)
        assert re.search(rf"^{k}\. \*{re.escape(name)}\*: {re.escape(rest)}$", prompt, re.MULTILINE)
