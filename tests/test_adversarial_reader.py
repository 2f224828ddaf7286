"""Text a reader understands at once must not read as private (issue 25, parts 2 and 4).

Each row of the issue's table is an identity release disguised in a way a reader sees through at
once; on eight MedQA profiles with the default pipeline (NLI judge) each must score within 0.05 of
the undisguised identity release. Figures before the fix (same eight records, same settings) are in
each case's comment. Below them: the normaliser's character classes one by one, genuine non-Latin
text left alone, and the ``unreadable`` policy for released text the judge cannot read.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from textleak.leakage import evaluate_leakage
from textleak.text import split_sentences
from textleak.text.normalize import normalize_release, normalize_text, respell

SPANISH = Path(__file__).parent / "data" / "medqa_es.jsonl"  # the eight profiles translated by hand


def _words(text: str, after: str) -> str:
    return " ".join(w + after for w in text.split(" "))


# name -> (disguise of one record, privacy measured before the fix on the eight profiles)
ROWS = {
    "html_references": (lambda t: t.replace("e", "&#101;"), 0.428),
    "grapheme_joiner_after_each_word": (lambda t: _words(t, "\u034f"), 0.220),
    "variation_selector_after_each_word": (lambda t: _words(t, "\ufe0f"), 0.220),
    "ideographic_variation_selector_after_each_word": (lambda t: _words(t, "\U000e0100"), None),
    "hangul_filler_for_each_space": (lambda t: t.replace(" ", "\u3164"), 0.546),
    "hangul_filler_beside_each_space": (lambda t: t.replace(" ", " \u3164"), 0.348),
    "latin_lookalikes": (lambda t: t.replace("a", "\u0251").replace("i", "\u0131").replace("g", "\u0261"), "KeyError"),
    "small_capitals": (lambda t: t.replace("o", "\u1d0f").replace("s", "\ua731").replace("u", "\u1d1c"), 0.622),
    "right_to_left_override_reversed": (lambda t: "\u202e" + t[::-1] + "\u202c", 0.985),
    # spellings a reader reads through (textleak.text.normalize.respell), measured before 2026-11-29 on these profiles
    "letters_spaced_out": (lambda t: "  ".join(" ".join(w) for w in t.split(" ")), 0.971),
    "letters_joined_by_hyphens": (lambda t: " ".join("-".join(w) if w.isalpha() else w for w in t.split(" ")), 0.622),
    "accents_on_every_vowel": (lambda t: t.translate(str.maketrans("aeiou", "áéïôü")), 0.277),
    "stacked_combining_marks": (lambda t: "".join(c + "\u0336\u0352" if c.isalpha() else c for c in t), 0.413),
    "one_word_per_line": (lambda t: "\n".join(t.split(" ")), 0.671),
    "leetspeak": (lambda t: t.translate(str.maketrans("aeiot", "43107")), 0.641),
    "parenthesized_letters": (lambda t: "".join(chr(0x249C + ord(c) - 97) if "a" <= c <= "z" else c for c in t), None),
    "negative_squared_capitals": (lambda t: "".join(chr(0x1F170 + ord(c) - 65) if "A" <= c <= "Z" else c for c in t.upper()), None),
    "url_encoded_spaces": (lambda t: t.replace(" ", "%20"), 0.975),
    "dots_for_spaces": (lambda t: t.replace(" ", "."), 0.494),
    "underscores_for_spaces": (lambda t: t.replace(" ", "_"), 0.135),
    "empty_tags_inside_words": (lambda t: " ".join(w[:2] + "<b></b>" + w[2:] if len(w) > 3 else w for w in t.split(" ")), 0.684),
    # pasted layout (textleak.text.layout, 2026-11-29): headings and tables are read, never in place of the lines
    "a_heading_over_each_sentence": (lambda t: "\n".join(f"NOTE:\n{s}" for s in split_sentences(t)), None),
    "a_negating_heading_over_each_sentence": (lambda t: "\n".join(f"NOT CONFIRMED\n{s}" for s in split_sentences(t)), None),
    "sentences_as_rows_of_an_aligned_table": (lambda t: "ITEM    FIELD   TEXT\n" + "\n".join(f"{k:<8}note    {s}" for k, s in enumerate(split_sentences(t))), None),
    "an_aligned_table_with_invisible_marks": (lambda t: "ITEM    FIELD   TEXT\n" + "\n".join(f"{k:<8}note    {_words(s, chr(0x200b))}" for k, s in enumerate(split_sentences(t))), None),
}


@pytest.fixture(scope="module")
def profiles(shared_data):
    from textleak.data.medqa import read_medqa_jsonl

    records = list(read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"))[:8]
    return [r["text"] for r in records], [r["id"] for r in records]


def _privacy(profiles, released, **options):
    texts, ids = profiles
    return evaluate_leakage(texts, released, original_ids=ids, bootstrap=0, use_cache=False, **options)


@pytest.fixture(scope="module")
def identity(profiles):
    report = _privacy(profiles, profiles[0])
    assert report.judge["name"] == "nli" and report.semantic_privacy <= 0.05
    return report


@pytest.mark.parametrize("row", list(ROWS))
def test_a_disguised_identity_release_scores_as_the_identity(profiles, identity, row):
    disguise, _before = ROWS[row]
    report = _privacy(profiles, [disguise(t) for t in profiles[0]])
    assert report.semantic_privacy <= identity.semantic_privacy + 0.05, row
    assert report.linkage_rate >= identity.linkage_rate - 1e-9, row


def test_a_record_without_spaces_reads_nearly_as_the_identity(profiles, identity):
    """Before 2026-11-29: 0.963 (linkage 0.50). Split into words again (wordninja), it reads 0.054 on these profiles:
    a few glued words are split otherwise ("oldman"), so the bound is 0.10, not the others' 0.05."""
    report = _privacy(profiles, [t.replace(" ", "") for t in profiles[0]])
    assert report.semantic_privacy <= identity.semantic_privacy + 0.10
    assert report.linkage_rate >= identity.linkage_rate - 1e-9


def test_the_record_translated_into_spanish_counts_as_leaked(profiles, identity, caplog):
    """Before: 0.79 in the issue (the NLI judge rates English claims against Spanish text
    unsupported); with the default policy every claim judged against Spanish text is leaked, and the
    one record BM25 cannot link from English claims is judged by its own (Spanish) released record."""
    spanish = {r["id"]: r["text"] for r in map(json.loads, SPANISH.read_text(encoding="utf-8").splitlines())}
    texts, ids = profiles
    released = [spanish[i] for i in ids]
    with caplog.at_level(logging.WARNING):
        report = _privacy(profiles, released)
    assert report.semantic_privacy <= identity.semantic_privacy + 0.05
    assert report.n_unreadable == 8 and report.summary()["n_unreadable"] == 8
    assert {r.released_language for r in report.records} == {"es"}
    assert "8 of 8 records were judged against released text in a language the judge (nli, reads en) does not read (es 8" \
        in caplog.text
    rated = [c for r in report.records for c in r.claims if not c["known"]]
    assert rated and all(c["rating"] == 1 and "which the judge does not read" in c["detail"]["reason"] for c in rated)
    excluded = _privacy(profiles, released, unreadable="exclude")
    assert excluded.semantic_privacy is None and excluded.n_unreadable == 8
    assert {r.status for r in excluded.records} == {"unreadable"} and excluded.n_unscored == 0


# ---- the normaliser, one character class at a time ------------------------------------------------------
PLAIN = "A 45-year-old woman comes to the physician because of fever and cough for 3 days."


@pytest.mark.parametrize("text", [PLAIN, "AT&T and R&D", "x < y && y > z", "&notes; &unknownentity", "C:\\Users\\rickard", ""])
def test_ascii_without_references_is_unchanged(text):
    assert normalize_text(text) == text


@pytest.mark.parametrize("text, expected", [
    (PLAIN.replace("e", "&#101;"), PLAIN),
    (PLAIN.replace("e", "&#x65;"), PLAIN),
    (PLAIN.replace("e", "&#101"), PLAIN),  # a browser shows a numeric reference without its ';' too
    ("caf&eacute; &amp; cr&egrave;me &lt;b&gt;", "café & crème <b>"),
    ("&amp;#101;", "&#101;"),  # one pass, as a browser shows it
    ("AT&T &notes R&D", "AT&T &notes R&D"),  # a named reference needs its ';'
])
def test_html_character_references_read_as_shown(text, expected):
    assert normalize_text(text) == expected


@pytest.mark.parametrize("char", [
    "\u034f",  # combining grapheme joiner (category Mn, not Cf: kept before)
    "\ufe0f", "\ufe00",  # variation selectors
    "\U000e0100", "\U000e01ef",  # ideographic variation selectors
    "\u180b", "\u180f",  # Mongolian free variation selectors
    "\U000e0041", "\U000e007f",  # tag characters
    "\u200b", "\u200d", "\u2060", "\u00ad", "\ufeff",  # zero-width space and joiner, word joiner, soft hyphen, BOM
])
def test_default_ignorable_characters_are_removed(char):
    assert normalize_text("pa" + char + "tient" + char + " has" + char + " fever") == "patient has fever"


@pytest.mark.parametrize("filler", ["\u3164", "\uffa0", "\u115f", "\u1160", "\u2800"])
def test_a_blank_filler_between_words_is_a_space(filler):
    assert normalize_text(PLAIN.replace(" ", filler)) == PLAIN
    assert normalize_text(PLAIN.replace(" ", " " + filler)) == PLAIN
    assert normalize_text(filler + "fever" + filler) == "fever"


@pytest.mark.parametrize("text, expected", [
    ("\u0251n\u0131m\u0251l b\u0131te, \u0261ood", "animal bite, good"),  # ɑ ı ɡ: Latin-script look-alikes
    ("h\u1d0f\u0455p\u0131t\u1d00l \ua731\u1d1c\u0280\u0262\u1d07\u0280\u028f", "hospital surgery"),  # small capitals
    ("\u0440\u0430ti\u0435nt", "patient"),  # Cyrillic letters inside a Latin word
    ("The \u0441\u043e\u0440\u0443 was \u0430 \u0441\u043e\u0440\u0443 of the file.", "The copy was a copy of the file."),
    ("\U0001d41a\U0001d41b\U0001d41c", "abc"),  # mathematical bold (NFKC)
])
def test_lookalike_letters_fold_to_latin(text, expected):
    assert normalize_text(text) == expected


@pytest.mark.parametrize("text", [
    "Ο ασθενής είναι 45 ετών και έχει πυρετό και βήχα εδώ και τρεις ημέρες. Η πίεση είναι φυσιολογική.",
    "Пациентка 45 лет обратилась к врачу с жалобами на лихорадку и кашель. А у неё ещё и насморк, о чём она молчала.",
    "환자는 45세 여성으로 사흘 동안 발열과 기침이 있었다.",
    "המטופלת בת 45 הגיעה לרופא בגלל חום ושיעול.",
    "患者是一名45岁的男性。他有高血压病史。",
    "La paciente, de 45 años, acude por fiebre y tos desde hace tres días.",
])
def test_genuine_text_in_other_scripts_is_unchanged(text):
    assert normalize_text(text) == text


@pytest.mark.parametrize("text, expected", [
    ("\u202e" + PLAIN[::-1] + "\u202c", PLAIN),  # displays as the original: reads as it
    ("\u202e" + PLAIN + "\u202c", PLAIN),  # stored order reads, the displayed one does not: the stored text leaks
    ("\u202e" + "Line one of the note.\nThe second line is here."[::-1], "Line one of the note.\nThe second line is here."),
    ("Note: \u202e.revef sah tneitap ehT\u202c Done.", "Note: The patient has fever. Done."),
    ("\u2067The patient has fever.\u2069 \u202bShe is 45.\u202c", "The patient has fever. She is 45."),  # isolates/embeddings
])
def test_bidi_overrides_read_as_displayed(text, expected):
    assert normalize_text(text) == expected


def test_a_run_under_an_override_with_no_words_keeps_both_readings():
    """A number or a name under an override: which order leaks is unknown, so both are kept."""
    out = normalize_text("Call \u202e4321-555\u202c now")
    assert "4321-555" in out and "555-1234" in out


def test_normalised_text_is_stable():
    for text in [PLAIN.replace("e", "&#101;"), _words(PLAIN, "\u034f"), "\u202e" + PLAIN[::-1], PLAIN.replace(" ", "\u3164")]:
        once = normalize_text(text)
        assert normalize_text(once) == once


# ---- released text the judge cannot read ----------------------------------------------------------------
RECORDS = [
    "Anna is 25 years old. Anna is a cook. Anna lives in Oslo. Anna has asthma. Anna owns a red bicycle.",
    "Boris is 60 years old. Boris is a pilot. Boris lives in Rome. Boris has gout. Boris collects old maps.",
    "Chen is 41 years old. Chen is a teacher. Chen lives in Lima. Chen has migraines. Chen plays the violin.",
    "Dina is 33 years old. Dina is a nurse. Dina lives in Cork. Dina has eczema. Dina keeps two cats.",
]
SPANISH_RECORDS = [
    "Anna tiene 25 años. Anna es cocinera. Anna vive en Oslo. Anna tiene asma. Anna tiene una bicicleta roja.",
    "Boris tiene 60 años. Boris es piloto. Boris vive en Roma. Boris tiene gota. Boris colecciona mapas antiguos.",
    "Chen tiene 41 años. Chen es profesor. Chen vive en Lima. Chen tiene migrañas. Chen toca el violín.",
    "Dina tiene 33 años. Dina es enfermera. Dina vive en Cork. Dina tiene eccema. Dina tiene dos gatos.",
]


def test_the_unreadable_policy_leak_exclude_or_judge():
    options = dict(judge="lexical", bootstrap=0, use_cache=False)
    released = SPANISH_RECORDS[:2] + RECORDS[2:]
    judged = evaluate_leakage(RECORDS, released, unreadable="judge", **options)  # what every judge did before
    leaked = evaluate_leakage(RECORDS, released, **options)
    excluded = evaluate_leakage(RECORDS, released, unreadable="exclude", **options)
    assert judged.n_unreadable == leaked.n_unreadable == excluded.n_unreadable == 2
    assert [r.released_language for r in leaked.records] == ["es", "es", "en", "en"]
    assert leaked.records[0].privacy == leaked.records[1].privacy == 0.0
    assert judged.records[0].privacy > 0.0  # the lexical judge misses some of Anna's facts in Spanish
    assert leaked.semantic_privacy < judged.semantic_privacy
    assert excluded.records[0].status == "unreadable" and excluded.records[0].privacy is None
    assert excluded.semantic_privacy == pytest.approx(leaked.records[2].privacy / 2 + leaked.records[3].privacy / 2)
    with pytest.raises(ValueError, match="unreadable"):
        evaluate_leakage(RECORDS, released, unreadable="ignore", **options)


def test_only_unreadable_unlinked_records_are_named_as_such(caplog):
    """An unlinked record whose own release is English is no concern of this policy (it keeps the
    unlinked rule); only unlinked records with an unreadable release are judged by it."""
    originals = RECORDS[:1] + ["Zed paints murals. Zed rides horses. Zed eats figs. Zed keeps goats. Zed sings opera."] + RECORDS[2:]
    released = SPANISH_RECORDS[:1] + ["Completely different words everywhere."] + RECORDS[2:]
    with caplog.at_level(logging.WARNING):
        r = evaluate_leakage(originals, released, judge="lexical", bootstrap=0, use_cache=False)
    assert r.n_unreadable == 1 and r.records[1].status == "unlinked" and r.records[1].privacy == 1.0
    assert "1 of 4 records were judged against released text" in caplog.text and "not linked" not in caplog.text


def test_code_and_logs_are_judged_as_before():
    log = "Traceback (most recent call last):\n  File \"/home/rickard/app.py\", line 3\nKeyError: 'ariel'"
    r = evaluate_leakage([log + "\nThe user is rickard.\nThe host is ariel."], [log], judge="lexical", bootstrap=0,
                         use_cache=False, k=1)
    assert r.n_unreadable == 0 and r.records[0].released_language == "en"


def test_the_metric_and_the_cli_report_unreadable_records(tmp_path, capsys):
    from textleak.cli import main
    from textleak.metrics import SemanticLeakage

    metric = SemanticLeakage(judge="lexical", bootstrap=0, keep_in_memory=True)
    out = metric.compute(predictions=SPANISH_RECORDS[:1] + RECORDS[1:], references=RECORDS)
    assert out["n_unreadable"] == 1
    originals, sanitized = tmp_path / "o.jsonl", tmp_path / "s.jsonl"
    originals.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(RECORDS)))
    sanitized.write_text("".join(json.dumps({"id": str(i), "text": t}, ensure_ascii=False) + "\n"
                                 for i, t in enumerate(SPANISH_RECORDS[:1] + RECORDS[1:])))
    assert main(["evaluate", "--originals", str(originals), "--sanitized", str(sanitized), "--judge", "lexical",
                 "--bootstrap", "0", "--output", str(tmp_path / "out"), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "1 records were judged against released text in a language the judge does not read: their claims count as " \
           "leaked" in printed
    (row,) = json.loads((tmp_path / "out" / "report.json").read_text())["results"]
    assert row["n_unreadable"] == 1 and row["settings"]["unreadable"] == "leak"


def test_precomputed_claims_are_normalised_like_the_records():
    claims = [["Anna is 25 years old.", "Anna is a c\u043e\u043ek.", "Anna lives in Osl\u043e.", "Anna has &#97;sthma."]]
    r = evaluate_leakage(RECORDS[:1], RECORDS[:1], original_claims=claims, judge="lexical", bootstrap=0, use_cache=False, k=1)
    assert all("\u043e" not in c["text"] and "&#" not in c["text"] for c in r.records[0].claims)
    assert r.semantic_privacy == 0.0


# ---- spellings a reader reads through (respell) ------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("t h e  p a t i e n t  i s  4 5  y e a r s  o l d  a n d  h a s  a  c o u g h", "the patient is 45 years old and has a cough"),
    ("the p-a-t-i-e-n-t has a c-o-u-g-h and a f-e-v-e-r", "the patient has a cough and a fever"),
    ("My name is J.O.H.N. Smith.", "My name is JOHN Smith."),
    ("My name is J.O.H.N.", "My name is JOHN."),
    ("th\u0336e\u0352 pa\u0338tient", "the patient"),
    ("Thé pâtïënt hás á côügh ánd á févér fôr thréé dáys.", "The patient has a cough and a fever for three days."),
    ("The\npatient\nhas\na\ncough\nand\na\nfever\nfor\nthree\ndays.", "The patient has a cough and a fever for three days."),
    ("Thepatienthasacoughandafeverforthreedays.Shewasseenbyherdoctor.", "The patient has a cough and a fever for three days. She was seen by her doctor."),
    ("Sh3 h4s 4 c0ugh 4nd 4 f3v3r. 7h3 p4713n7 74k3s l1s1n0pr1l d41ly s1nc3 2019.", "She has 4 cough and 4 fever. the patient takes lisinopril daily since 2019."),
])
def test_spellings_a_reader_reads_through_are_read_as_words(text, expected):
    assert respell(normalize_text(text)) == expected
    # a release is read both ways: respelled, then as written (a misfire can add, never hide)
    assert normalize_release(text) == expected + "\n\f\n" + normalize_text(text)
    assert normalize_text(text) != expected  # originals and claims are read as written


@pytest.mark.parametrize("text, expected", [
    ("T\u24a3\u24a0 \u24ab\u249c\u24af\u24a4\u24a0\u24a9\u24af", "The patient"),  # parenthesized small letters: NFKC gives "(h)(e)"
    ("\U0001f183\U0001f177\U0001f174", "THE"),  # negative squared capitals
    ("\U0001f163\U0001f157\U0001f154", "THE"),  # negative circled capitals
    ("item \u2474 and \u2488", "item (1) and 1."),  # parenthesized and full-stop digits stay list numbers
])
def test_fancy_text_letters_are_letters(text, expected):
    assert normalize_text(text) == expected


@pytest.mark.parametrize("text", [
    "U.S.A. and e.g. and i.e. and a.b and v1.2.3.4",  # abbreviations and versions
    "Le patient a été hospitalisé à Paris. Il a été opéré à l'hôpital hier.",  # French keeps its accents
    "El paciente está en el hospital. Según el médico, está estable y sin fiebre.",
    "Tiếng Việt có dấu, tôi là người Việt Nam và tôi sống ở Hà Nội.",  # two stacked marks are Vietnamese
    "Dr. José Núñez saw her at the café.",
    "services:\n  db:\n    image: mysql:8.0.36\n    restart: always\n",
    "public class AbstractSingletonProxyFactoryBean extends ProxyConfig { private TransactionInterceptor interceptor; }",
    "see https://www.verylongdomainnamehere.com/anotherlongpathsegment or averylongemailname@example.com",
    "commit 9f2c41e7b0a3d5c8e1f64a2b7c9d0e3f5a1b2c4d",
    "a b c",
    "intraepidermal vs subepidermal split",
    "at com.foo.bar.Baz.method(Baz.java:12)\n    at com.foo.bar.Qux.run(Qux.java:40)\n    at java.lang.Thread.run(Thread.java:833)",
    "/usr/local/lib/python3.11/site-packages/foo/bar/baz.py",
    "GET /api/v1/users?name=John+Smith&city=New+York HTTP/1.1",
    "my_variable_name_is_long = another_function_call(with_args, and_more_args)",
    "the <b>patient</b> has a fever",
    "db01 user42 h264 md5 x86 s3 ipv4 covid19 b12 k8s l10n i18n ec2 t2.micro mp3 4x4 3d 2fa",  # identifiers, not leetspeak
    "The S3 bucket backup-2024 is on ec2 host web01, ipv4 10.0.0.1, port 8443; she took B12 and 5mg of it at 7am.",
    "Apples\nPears\nPlums",
])
def test_ordinary_text_is_not_respelled(text):
    assert respell(text) == text and normalize_release(text) == text


@pytest.mark.parametrize("text", [
    # German and Dutch prose: long compounds among short words, never glued text (the language stays German)
    "Seine Krankenversicherung hat die Krankenhausbehandlung und die Rehabilitationsmaßnahme nach dem Arbeitsunfall übernommen.",
    "De arbeidsongeschiktheidsverzekering en de ziektekostenverzekering dekken de behandeling in het ziekenhuis.",
    # a negated relation keeps its stroke: the overlay is on "=", not on a letter
    "HbA1c \u2260 6.5% and x \u2209 S and a \u226e b",
])
def test_prose_and_symbols_that_reach_the_rules_are_not_respelled(text):
    assert respell(normalize_text(text)) == normalize_text(text)


def test_a_misfire_on_a_release_keeps_what_it_writes():
    """A default-credentials list reads as leetspeak and a column of names as one line; the release keeps the text
    as written beside that reading, so "r00t" and each name are still there to be found."""
    creds = "Default creds: admin/Adm1n, root/r00t, test/t3st, guest/gu3st, user/us3r, backup/b4ckup."
    read = normalize_release(creds)
    assert "root/root" in read and "root/r00t" in read
    names = "\n".join(["Alice Kim", "Bob", "Carol", "Dan", "Eve", "Frank", "Grace", "Heidi", "Ivan"])
    read = normalize_release(names)
    assert read.endswith(names) and "Bob Carol" in read


def test_a_release_respelling_misfires_on_keeps_its_leaks():
    """The review's case, at the judge: a released default-credentials list reads as leetspeak. Respelled alone,
    "r00t" became "root" and both leaked passwords were rated 3 (measured 2026-11-29); with the text as written kept
    beside the reading, they are rated as against the text as written: leaked."""
    from textleak.judges import make_judge

    released = "Default creds: admin/Adm1n, root/r00t, test/t3st, guest/gu3st, user/us3r, backup/b4ckup."
    claims = ["The root account's password is r00t.", "The backup account's password is b4ckup."]
    assert "root/root" in respell(normalize_text(released))  # the respelling does fire on this release
    judge = make_judge("nli")
    as_written = [r.rating for r in judge.rate([claims], [normalize_text(released)])[0]]
    read = [r.rating for r in judge.rate([claims], [normalize_release(released)])[0]]
    assert as_written == [1, 1] and read == as_written


def test_a_release_read_two_ways_has_the_language_of_its_respelled_reading():
    """Spanish spaced out letter by letter: as written, its single letters ("a", "y", "e") read as English function
    words, so the two readings together were guessed English and judged, not counted as leaked (chat held-out,
    2026-11-29: 8 of 400 pairs moved from 1 to 2 or 3)."""
    from textleak.text.language import detect_language

    spanish = "A mi mamá le diagnosticaron diabetes tipo 2 la semana pasada en la clínica de Guadalajara y el médico dice que está estable."
    release = normalize_release("  ".join(" ".join(w) for w in spanish.split(" ")))
    assert release.startswith(spanish) and detect_language(release).language == "es"


def test_marks_on_digits_are_stray_marks_too():
    zalgo = "".join(c + "\u0336\u0352\u0301" if c.isalnum() else c for c in "call 0861234567 now")
    assert respell(normalize_text(zalgo)) == "call 0861234567 now"
