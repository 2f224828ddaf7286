"""``textleak evaluate --labels --html``: the judge's agreement on the user's labels is in report.html,
not only printed (issue 26, item 3), as the study's page already shows it."""

from __future__ import annotations

import json
import re

from textleak.cli import main
from textleak.data.vignettes import DEMO_PATH
from textleak.io import read_records


def test_evaluate_html_with_labels_shows_the_corrected_figure_and_agreement(tmp_path, capsys):
    from textleak.commands.label import Session, choose_run, find_runs

    recs = read_records(str(DEMO_PATH), limit=12)
    src = tmp_path / "medqa.jsonl"
    # a partial sanitizer: every other sentence dropped
    src.write_text("".join(json.dumps({"id": r["id"], "text": r["text"],
                                       "sanitized": " ".join(re.split(r"(?<=[.!?])\s+", r["text"])[::2])}) + "\n" for r in recs))
    out = tmp_path / "out"
    args = ["evaluate", "--originals", str(src), "--sanitized-column", "sanitized", "--judge", "lexical", "--bootstrap", "100",
            "--no-progress", "--output", str(out), "--html"]
    assert main(args) == 0
    assert "Corrected by hand labels" not in (out / "report.html").read_text()  # no labels: no section
    session = Session.open(choose_run(find_runs(out), None), 30, 0)
    for k, c in enumerate(session.items):
        session.set(c.key, 3 if k % 2 else c.rating)  # a labeller who finds half the claims unsupported
    capsys.readouterr()
    assert main(args + ["--labels", str(session.run.labels_path)]) == 0
    (row,) = json.loads((out / "report.json").read_text())["results"]
    lab = row["labelled"]
    page = (out / "report.html").read_text()
    assert "Corrected by hand labels" in page and "id='labelled'" in page
    table = page[page.index("id='labelled'"):]
    table = table[: table.index("</table>")]
    assert f"{lab['semantic_privacy']:.3f}" in table and f"<td>{lab['n_labels']}</td>" in table
    assert f"{lab['agreement']['lean']:+.3f}" in table  # the judge's lean on these labels
    assert "/".join(str(x) for x in lab["agreement"]["confusion"][0]) in table  # and its confusion table
