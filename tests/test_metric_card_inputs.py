"""The semantic_leakage metric card (the Space's README) documents every argument compute() takes, so
a user of evaluate.load("semantic_leakage") finds ``labels`` (issue 26: labels= on the metric)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

CARD = Path(__file__).resolve().parent.parent / "metrics" / "semantic_leakage" / "README.md"


def test_card_inputs_name_every_compute_argument():
    from textleak.metrics.semantic_leakage import SemanticLeakage

    params = [p.name for p in inspect.signature(SemanticLeakage._compute).parameters.values()
              if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD]
    card = CARD.read_text(encoding="utf-8")
    inputs = card[card.index("### Inputs"):card.index("### Output Values")]
    documented = set(re.findall(r"^- \*\*(\w+)\*\*", inputs, re.MULTILINE))
    assert "labels" in params
    assert [p for p in params if p not in documented] == []
    assert "`labelled`" in card[card.index("### Output Values"):]
