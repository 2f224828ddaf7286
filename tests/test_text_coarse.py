"""A coarser form of a claim's version, address, date or clock time is a generalisation (rating 2), never
unsupported; the full value written differently (another day, version or minute) is not a coarser form."""

from __future__ import annotations

import pytest

from textleak.judges.values import value_verdict
from textleak.text.coarse import coarser_written, specific_values

GENERALISED = [
    ("The user's local Node.js version is 20.11.1.", "CI runs an older Node 18 than the Node 20 used locally."),
    ("CI runs Node.js 18.19.0.", "CI runs an older Node 18 than the Node 20 used locally."),
    ("The user upgraded to Python 3.11.", "After moving to a newer Python 3 release, psycopg2 fails."),
    ("The PostgreSQL server's IP address is 10.42.7.19.", "Our Postgres server (a 10.x private address) refuses the login."),
    ("The database server's IP address is 192.168.10.5.", "The SQL Server box sits in the 192.168.10.0/24 subnet."),
    ("The release version is v2.4.0.", "Our 2.x release is blocked by one test."),
    ("The staging build is 5.12.3.", "It fails on our staging environment, 5.12 build."),
    ("The user has a sleep study on March 3, 2025.", "Sleep study is still on for March."),
    ("The e-mail was sent on 18 November 2026 at 17:41 UTC.", "The message was sent in mid-November from our server."),
    ("The fix is due on 4 December 2026.", "A fix is needed in the first week of December."),
    ("The first error was logged at 03:12.", "Since about 3am the site has shown 502 errors."),
]
NOT_GENERALISED = [
    ("The user upgraded to Python 3.11.", "After moving to Python 3.12, psycopg2 fails."),  # another version
    ("The database server's IP address is 192.168.10.5.", "The SQL Server box sits in the 192.168.11.0/24 subnet."),
    ("The fix is due on 4 December 2026.", "The fix is due on 11 December 2026."),  # another day of that month
    ("The first error was logged at 03:12.", "The first error was logged at 03:40."),
    ("The user has a sleep study on March 3, 2025.", "We may study it later."),  # "may" the verb
    ("The user has a sleep study on March 3, 2025.", "My cousin visits in March."),  # no word of the claim beside it
    ("Her HbA1c is 6.1%.", "Her HbA1c is 6%."),  # a measurement, not a version: left to the model
]


@pytest.mark.parametrize("claim,text", GENERALISED)
def test_a_coarser_value_is_not_unsupported(claim, text):
    verdict = value_verdict(claim, text)
    assert verdict.cap == 2 and "coarser" in verdict.reason, (claim, text, verdict)


@pytest.mark.parametrize("claim,text", NOT_GENERALISED)
def test_another_value_or_another_topic_is_not_a_generalisation(claim, text):
    assert "coarser" not in value_verdict(claim, text).reason


def test_specific_values_take_versions_after_a_product_name_not_measurements():
    assert [(v.text, v.name) for v in specific_values("The user's local Node.js version is 20.11.1.")] == [("20.11.1", "Node")]
    assert [v.text for v in specific_values("The release version is v2.4.0.")] == ["v2.4.0"]
    assert specific_values("Her temperature is 38.5°C.") == ()


def test_a_digit_run_too_long_for_int_is_no_value_and_no_crash():
    # int() refuses strings of more than 4,300 digits: an adversarial released text must not stop the judge
    from textleak.text.quantities import find_quantities

    long = "9" * 5000
    assert value_verdict("The server runs Node.js 20.11.1.", f"Node {long}.1 runs here").cap == 3
    assert value_verdict(f"The build is 1.2.{long}.", "build 1.2 today").cap == 3
    assert find_quantities(f"lag {long}m40s") == ()


def test_a_number_written_as_a_range_in_words_is_a_generalisation():
    """"more than a dozen restarts" for 14, "tens of terabytes" for 38 TB, "in my mid-twenties" for 26,
    "upwards of CA$150k" for CA$185k, "sub-1 GB" for 512 MB: seed 000's "similar". A range that does not hold
    the number, another unit or currency, or the sentence writing another number of the kind, is not."""
    from textleak.judges.values import value_verdict

    def coarse(claim, sentence):
        return any(coarser_written(v, sentence) for v in specific_values(claim) if v.kind == "number")

    assert coarse("The pod has 14 restarts.", "the pod is 0/1 ready with more than a dozen restarts in under an hour")
    assert coarse("The bucket holds about 38 TB of recordings.", "The bucket holds tens of terabytes of recordings.")
    assert coarse("The member has 48,210 points.", "points: tens of thousands")
    assert coarse("The user's salary expectation is CA$185k.", "I want roles paying upwards of CA$150k.")
    assert coarse("The MySQL container has a memory limit of 512 MB.", "it gets OOM-killed under a sub-1 GB memory cap")
    assert coarse("The user paid $640 upfront.", "I paid about $600 upfront")
    assert coarse("The user is 26 years old.", "I'm in my mid-twenties and work early shifts")
    assert coarse("The patient is a 45-year-old man.", "A man in his mid-forties presents with chest pain.")
    assert not coarse("The user is 45 years old.", "I'm a teacher in my late thirties")
    assert not coarse("The pod has 14 restarts.", "the pod has hundreds of restarts")
    assert not coarse("The user paid $640 upfront.", "I paid about £600 upfront")
    assert not coarse("The pod has 14 restarts.", "the pod has 17 restarts, more than a dozen")  # another count: a contradiction
    assert not coarse("The user moved in 2019.", "I moved a few years ago")  # a year is not a count
    assert value_verdict("The user is 26 years old.", "Hi! I'm in my mid-twenties and work early shifts.").cap == 2
