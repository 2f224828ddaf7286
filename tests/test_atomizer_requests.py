"""Claims from chat requests (issue 25.5): the rule atomizer finds the facts a user's request states, in
the third person, so that at least 80% of 200 PUPA requests keep a scored claim at k=3, without padding
(no claim that states nothing, no duplicate), and leaves clinical records exactly as they were."""

from __future__ import annotations

import re

import pytest

from textleak.atomizers.requests import is_request
from textleak.atomizers.rules import RuleAtomizer
from textleak.leakage.knowledge import select_known_indices
from textleak.text.normalize import normalize_text

ATOMIZER = RuleAtomizer(requests=True)  # opt-in until the judge rates these claims as supported (see the docs)

# words that frame a claim without stating anything (written here, not imported: the test checks the rules)
FRAMING = set("""
the a an user user's users asks ask to wants want the assistant mentions is are was were of this that it these those
please help something anything text question write rewrite message writer writer's and others their them
""".split())


def claims(text: str) -> list[str]:
    return ATOMIZER.atomize_one(text)


def _tokens(claim: str) -> frozenset[str]:
    return frozenset(w.lower() for w in re.findall(r"[^\W_]+(?:[-'’.][^\W_]+)*", claim))


@pytest.fixture(scope="module")
def pupa(shared_data) -> list[str]:
    """The first 200 PUPA requests, loaded and normalised as the leakage pipeline does."""
    from textleak.data import load

    path = shared_data / "pupa" / "PUPA_TNB.csv"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    ds = load("wildchat", data_dir=str(path.parent), split="train")
    return [normalize_text(t) for t in ds["text"][:200]]


def test_chat_requests_in_the_third_person():
    text = ("I'm a night-shift nurse in Leeds and I keep falling asleep on the bus home. My partner says I should see my GP "
            "but I don't have time until March. Any tips?")
    assert claims(text) == ["The user is a night-shift nurse.", "The user is in Leeds.", "The user keeps falling asleep on the bus home.",
                            "The user's partner says the user should see their GP.", "The user has a partner.",
                            "The user does not have time until March.", 'The user asks: "Any tips?"', "The user mentions GP."]
    assert claims("critically analyze the film You Shall Not Kill and express an opinion") == [
        "The user asks to critically analyze the film You Shall Not Kill.", "The user asks to express an opinion."]
    assert claims("I am applying for the job. i have attached my resume, i hope you will consider it") == [
        "The user is applying for the job.", "The user has attached their resume.", "The user hopes you will consider it."]
    assert claims("Can you list these firms: 1. Epic Systems 2. Cerner Corporation 3. Allscripts Inc") == [
        "The user asks the assistant to list these firms.", "Allscripts Inc.", "The user mentions Epic Systems.",
        "The user mentions Cerner Corporation."]


def test_most_pupa_requests_keep_a_scored_claim_at_k3(pupa):
    """The pipeline's own rule (select_known_indices, short_records="exclude"): a record is scored when a
    claim is left once the adversary knows 3. The v2 atomizer scored 51.5% (73% with reduce_k)."""
    counts = [len(c) for c in ATOMIZER.atomize(pupa)]
    known = select_known_indices(counts, k=3)
    scored = sum(n - len(kn) >= 1 for n, kn in zip(counts, known)) / len(counts)
    assert scored >= 0.80, scored
    reduced = select_known_indices(counts, k=3, keep_one=True)
    assert sum(n - len(kn) >= 1 for n, kn in zip(counts, reduced)) / len(counts) >= 0.88


def test_pupa_claims_state_something_and_never_repeat(pupa):
    """No claim made only of framing ("The user asks to rewrite this text."), no claim twice, no two claims
    of a record with the same words, no claim ending on a function word ("The user is living in.")."""
    for text in pupa:
        seen: set[frozenset[str]] = set()
        for c in claims(text):
            words = _tokens(c)
            assert words - FRAMING, (c, text[:80])
            assert words not in seen, (c, text[:80])
            seen.add(words)
            if ATOMIZER.route(text) == "rules" and is_request(text):
                assert not re.search(r"\b(?:a|an|the|of|to|in|for|with|from|via|and|or)[.!?]$", c), (c, text[:80])


def test_pupa_request_claims_are_in_the_third_person(pupa):
    """Outside quotation marks a request's claims speak of "the user" (or "the writer" of a pasted text),
    never "I"/"my"/"we" (an all-capitals record and formulas such as "I=PRT" aside)."""
    first_person = re.compile(r"(?<![\w.=-])(?:I|my|me|we|our|us|myself)(?![\w=.'’-])")
    for text in pupa:
        if ATOMIZER.route(text) != "rules" or not is_request(text) or text.upper() == text or sum(ch.isupper() for ch in text) > 0.5 * sum(ch.isalpha() for ch in text):
            continue
        for c in claims(text):
            unquoted = re.sub(r'"[^"]*"?|“[^”]*”?', "", c)
            assert not first_person.search(unquoted), (c, text[:80])


@pytest.mark.parametrize("text, expected", [
    # a relation and its name, where it lives
    ("My sister Anna lives in Berlin and my boss wants me to move there.",
     ["The user's sister Anna lives in Berlin.", "The user has a sister.", "The user's sister is named Anna.",
      "The user's boss wants them to move there.", "The user has a boss.", "The user mentions Berlin."]),
    # a request: what is asked for, to whom, about what
    ("i want to write a letter to the royal college of emergency medicine explaining the war situation in Sudan",
     ["The user wants to write a letter.", "The requested letter is to the royal college of emergency medicine.",
      "The requested letter is explaining the war situation in Sudan.", "The user mentions Sudan."]),
    # an apposition of a named person
    ("I want you to make me a presentation of Mickael BAUMAN, currently working at Alexander Mann solutions, based in Bordeaux",
     ["The user wants the assistant to make a presentation of Mickael BAUMAN, currently working at Alexander Mann solutions, "
      "based in Bordeaux.", "Mickael BAUMAN is currently working at Alexander Mann solutions.", "Mickael BAUMAN is based in Bordeaux.",
      "The user mentions Alexander Mann.", "The user mentions Bordeaux."]),
    # a pasted e-mail: its greeting, its signature, its "we" (the writer's, not necessarily the user's)
    ("Hi May,We will pass this full set document to our AP term for arrange the payment. Best, Vicky",
     ["The message is addressed to May.", "The writer and others will pass this full set document to their AP term for arrange "
      "the payment.", "The message is signed by Vicky.", "The user mentions AP."]),
    # text after "rewrite this:" is pasted: its "I" is the writer, even past the clause split
    ("rewrite this text: I moved to Oslo in 2019 and I work at Equinor.",
     ["The writer moved to Oslo in 2019.", "The writer works at Equinor.", "The user mentions the year 2019.",
      "The user mentions Oslo."]),
    # an amount of money, a recipient
    ("write an email to Ms.yoyo ; tell her 6480 USD has been transfer to the ApoStar IBAN Account",
     ["The user asks to write an email.", "The requested email is to Ms.yoyo.",
      "The user asks to tell her 6480 USD has been transfer to the ApoStar IBAN Account.",
      "The user mentions an amount of 6480 USD.", "The user mentions ApoStar IBAN Account."]),
    # a company named in brackets, and what it does, item by item
    ("I want you to help me with the website for my company (MIH) which is a supplier of pharmaceuticals, nutraceuticals and "
     "medicated cosmetics",
     ["The user wants the assistant to help them with the website for their company (MIH) which is a supplier of "
      "pharmaceuticals, nutraceuticals and medicated cosmetics.",
      "The user's company (MIH) is a supplier of pharmaceuticals.", "The user's company (MIH) is a supplier of nutraceuticals.",
      "The user's company (MIH) is a supplier of medicated cosmetics.", "The user has a company.",
      "The user's company is named MIH."]),
    # a why-question states what it asks about
    ("Why has Caroline Regis been successful in her career so far at excel systems?",
     ["Caroline Regis has been successful in her career so far at excel systems.", "The user mentions Caroline Regis."]),
])
def test_requests_give_the_facts_they_state(text, expected):
    assert claims(text) == expected


@pytest.mark.parametrize("text", ["Please rewrite this text.", "Write it better.", "Thanks!", "Dear sir,"])
def test_requests_that_state_nothing_give_no_claim(text):
    assert claims(text) == []


def test_a_single_fact_stays_one_claim():
    """No padding to reach k: a request that names one thing gives one claim (the name is not repeated
    as "The user mentions Rujing Tang.")."""
    assert claims("describe the person Rujing Tang") == ["The user asks to describe the person Rujing Tang."]
    assert claims("who is lualhati lamorin se") == ["The user asks who lualhati lamorin se is."]


def test_clinical_records_are_untouched(shared_data):
    """The request rules never apply to a MedQA profile: the claims are those of the clause rules alone."""
    from textleak.data.medqa import read_medqa_jsonl

    plain = RuleAtomizer(requests=False)
    for r in read_medqa_jsonl(shared_data / "medqa" / "sampled_50.jsonl"):
        assert not is_request(r["text"])
        assert claims(r["text"]) == plain.atomize_one(r["text"])
    for text in ("He smokes; he does not drink alcohol.", "An ECG shows sinus tachycardia and low voltage QRS complexes.",
                 "Laboratory studies show:\nHemoglobin 9.8 g/dL\nNa+: 138 mEq/L"):
        assert claims(text) == plain.atomize_one(text)


def test_an_amount_with_spaces_between_thousands_is_one_amount():
    """"1 234 dollars" was claimed as "an amount of 234 dollars", a claim no release states when it writes 1,234:
    privacy rose with the number's form (found by the adversarial test of stop 40)."""
    from textleak.atomizers.requests import value_claims

    claims = value_claims("I have a loan of 1 234 dollars and 45 000 euros of savings.")
    assert "The user mentions an amount of 1 234 dollars." in claims
    assert "The user mentions an amount of 45 000 euros." in claims
    assert not any("234 dollars" in c and "1 234" not in c for c in claims)
