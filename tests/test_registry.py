"""Extending is registering: a throwaway judge and a throwaway sanitizer, each one class and one
registration, run through the metric, the API and the CLI; the CLI's choices come from the registries."""

from __future__ import annotations

import json

import pytest

from textleak.cli import main
from textleak.judges.base import OK, ClaimRating, Judge, normalise
from textleak.registry import Registry, UnknownNameError, judges, linkers, sanitizers
from textleak.sanitize.base import SanitizeResult, Sanitizer

RECORDS = [
    "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
    "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
    "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin.",
]


class EverythingLeaksJudge(Judge):
    """Rates every claim 1 (same), whatever the document: privacy can only be 0."""

    accepts_device = True

    def __init__(self, strength: int = 1, device: str | None = None, batch_size: int | None = None):
        self.strength = strength
        self.device = device
        self.batch_size = batch_size

    def _rate(self, claims, documents, seeds):
        return [[ClaimRating(1, normalise(1), OK) for _ in cs] for cs in claims]

    def describe(self):
        return {"name": "everything_leaks", "strength": self.strength, "device": self.device, "batch_size": self.batch_size}


class UpperCase(Sanitizer):
    """Upper-cases every record (no privacy at all, but a visible change)."""

    def sanitize_batch(self, texts, seeds):
        return [SanitizeResult(t.upper()) for t in texts]


@pytest.fixture
def registered():
    judges.register("everything_leaks")(EverythingLeaksJudge)
    sanitizers.register("upper_case")(UpperCase)
    yield
    judges.remove("everything_leaks")
    sanitizers.remove("upper_case")


def test_a_registered_judge_runs_through_the_metric_with_device_and_batch_size(registered):
    from textleak.metrics import SemanticLeakage

    metric = SemanticLeakage(judge="everything_leaks", judge_options={"strength": 2}, device="cpu", batch_size=7,
                             bootstrap=0, keep_in_memory=True)
    r = metric.compute(predictions=[t.replace("Oslo", "a city") for t in RECORDS], references=RECORDS)
    assert r["semantic_privacy"] == 0.0  # the throwaway judge rated every claim "same"
    assert r["judge"] == {"name": "everything_leaks", "strength": 2, "device": "cpu", "batch_size": 7}


def test_a_registered_judge_and_sanitizer_run_through_the_cli(registered, tmp_path, capsys):
    data = tmp_path / "records.jsonl"
    data.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(RECORDS)), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["evaluate", "--originals", str(data), "--sanitizer", "upper_case", "--judge", "everything_leaks",
                 "--judge-option", "strength=3", "--output", str(out), "--bootstrap", "0", "--no-progress"]) == 0
    row = json.loads((out / "report.json").read_text())["results"][0]
    assert row["sanitizer"] == "upper_case" and row["judge"]["strength"] == 3
    assert row["semantic_privacy"] == 0.0 and row["linkage_rate"] == 1.0
    records = [json.loads(line) for line in (out / "records-upper_case.jsonl").read_text().splitlines()]
    assert records[0]["linked_id"] == "0"


def test_cli_choices_come_from_the_registries(registered, capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = capsys.readouterr().out
    assert "everything_leaks" in text and all(name in text for name in linkers.names())


def test_registry_rules():
    reg = Registry("widget")

    @reg.register("a", aliases=("alpha",))
    class A:
        def __init__(self, size: int = 1):
            self.size = size

    assert reg.names() == ["a"] and reg.get("alpha") is A and reg.get("A") is A
    assert reg.create("a", size=3).size == 3
    with pytest.raises(ValueError, match="no option"):
        reg.create("a", colour="red")
    with pytest.raises(UnknownNameError, match="unknown widget 'b'; available: a"):
        reg.get("b")
    with pytest.raises(ValueError, match="already registered"):
        reg.register("a")(type("Other", (), {}))
    with pytest.raises(ValueError, match="takes no llm"):
        reg.build("a", llm="embedded")
    assert reg.build("a", llm="embedded", strict_llm=False).size == 1


def test_a_judge_that_is_not_a_judge_cannot_register():
    with pytest.raises(TypeError, match="must subclass Judge"):
        judges.register("not_a_judge")(type("NotAJudge", (), {}))
