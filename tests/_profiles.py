"""Eight short synthetic profiles (five facts each) shared by the adversarial suites."""

RECORDS = [
    "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
    "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
    "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin.",
    "Dina is 33 years old. Dina is a nurse. Dina lives in Cork. Dina has eczema. Dina keeps two cats.",
    "Emil is 52 years old. Emil is a baker. Emil lives in Graz. Emil has diabetes. Emil rows on weekends.",
    "Fatima is 47 years old. Fatima is a judge. Fatima lives in Fez. Fatima has anemia. Fatima grows roses.",
    "Goran is 29 years old. Goran is a welder. Goran lives in Split. Goran has psoriasis. Goran plays chess.",
    "Hana is 38 years old. Hana is a chemist. Hana lives in Brno. Hana has lupus. Hana speaks Welsh.",
]

LEXICAL = ["--judge", "lexical", "--bootstrap", "0", "--no-progress"]
"""Command-line options of a quick evaluate run: the lexical judge, no bootstrap, no progress bars."""


def write_jsonl(path, rows) -> str:
    """``rows`` as a JSON-lines file at ``path`` (a pathlib.Path); its path as a string, for the CLI."""
    import json

    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def error_line(capsys) -> str:
    """The one line the CLI printed to stderr with "error:" in it (fails when there is not exactly one)."""
    lines = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert len(lines) == 1, lines
    return lines[0]
