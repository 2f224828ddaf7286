"""Values that are written are leaked (issue 25): a claim's names, identifiers and quantities found in
the released text, the reader's view of that text (typos repaired, units converted), and the NLI
judge's ratings on the cases that defeated it."""

from __future__ import annotations

import pytest

from textleak.judges.values import claim_values, reader_view, value_verdict
from textleak.text.quantities import find_quantities, rewrite_units, same_quantity
from textleak.text.typos import repair_typos


def kinds(claim: str) -> dict[str, str]:
    return {v.text: v.kind for v in claim_values(claim)}


def test_claim_values_find_names_identifiers_and_quantities():
    assert kinds("The PostgreSQL host that pgloader connects to is named 'ariel'.") == {"ariel": "named"}
    assert kinds("The user's Linux username is rickard.")["rickard"] == "named"
    assert kinds("The user's email is john.doe@gmail.com.") == {"john.doe@gmail.com": "named"}
    assert kinds("The user's phone number is (312) 555-0174.") == {"(312) 555-0174": "number"}
    assert kinds("The user is user42 on db01.acme.internal.") == {"user42": "identifier", "db01.acme.internal": "identifier"}
    assert kinds("The user works at Acme Corp.") == {"Acme Corp": "name"}
    assert kinds("He weighs 80 kg.") == {"80 kg": "quantity"}


def test_a_verb_after_a_slot_is_not_a_name_but_a_named_one_is():
    """"The employer is paying EUR 1,800": "paying" is the verb, and a value nobody writes would keep the amount
    from counting; after "named" or "called" the word is the name, whatever it looks like."""
    assert kinds("The user's employer is paying €1,800 for the ticket.") == {"€1,800": "quantity"}
    assert value_verdict("The user's employer is paying €1,800 for the ticket.", "The ticket (EUR 1800 in total) is paid by my employer.").cap == 1
    assert kinds("The order was placed on Monday.") == {}
    assert kinds("The server is named loaded.") == {"loaded": "named"}
    assert kinds("The PostgreSQL host is ariel.") == {"ariel": "named"}
    # a word in -ing or -ed that ends the claim is the value: a branch, a password
    assert kinds("The git branch is staging.") == {"staging": "named"}
    assert kinds("The password is blessed.") == {"blessed": "named"}


def test_units_acronyms_durations_and_framing_words_are_not_values():
    for claim in ("His leukocyte count is 16,800/mm3.", "His hemoglobin A1c is 6.4%.",
                  "An ECG shows ST elevation.", "The patient has had a fever for 2 days.",
                  "The patient is 45 years old.", "The user asks for help on Monday."):
        assert claim_values(claim) == (), claim


def test_a_written_name_is_leaked_and_its_relation_decides_between_1_and_2():
    assert value_verdict("The person's name is Sam.", "What symptoms may Sam experience because of his condition?").cap == 1
    assert value_verdict("The user's Linux username is rickard.", "cannot open /home/rickard/Documents/a.txt").cap == 1
    assert value_verdict("The PostgreSQL host that pgloader connects to is named 'ariel'.",
                         'FATAL Failed to connect to pgsql at "ariel" (port 5432)').cap == 1
    assert value_verdict("The user's phone number is (312) 555-0174.", "call me at 312.555.0174").cap == 1
    # the value is there, the relation is not: not unsupported, not the same
    assert value_verdict("The user works at Acme Corp.", "I bought a printer from Acme Corp last year.").cap == 2
    # masked, or another value: no constraint
    assert value_verdict("The person's name is Sam.", "What symptoms may <PERSON> experience?").cap == 3
    assert value_verdict("The user's Linux username is rickard.", "cannot open /home/rikard/Documents/a.txt").cap == 3


def test_a_name_counts_anywhere_and_a_quantity_only_beside_another_word_of_the_claim():
    # the name is written, the relation is not: not unsupported
    assert value_verdict("The patient was born in Mexico.", "She moved from Mexico to Texas in 2001.").cap == 2
    assert value_verdict("The patient was born in Mexico.", "She was born in Mexico and moved in 2001.").cap == 1
    assert value_verdict("She weighs 80 kg.", "The parcel weighs 80 kg.").cap == 1
    assert value_verdict("She weighs 80 kg.", "Her brother lifted 80 kg.").cap == 3


def test_figures_of_three_digits_count_beside_a_word_of_the_claim():
    assert kinds("The app listens on port 8081.") == {"8081": "figure"}
    assert kinds("Her arterial pH is 7.12.") == {"7.12": "figure"}
    assert value_verdict("The app listens on port 8081.", "nginx: connect() to 127.0.0.1 port 8081 failed").cap == 2
    assert value_verdict("The app listens on port 8081.", "Invoice 8081 is attached.").cap == 3


def test_dates_match_across_formats_and_day_month_order():
    from textleak.text.dates import find_dates, same_date

    a = find_dates("The user moved out on 14 February 2025.")[0]
    for text in ("le 14/02/2025", "2025-02-14", "Feb 14th, 2025", "February 14 2025"):
        assert same_date(a, find_dates(text)[0]), text
    assert not same_date(a, find_dates("15/02/2025")[0])
    assert value_verdict("The user has a sleep study on March 3, 2025.", "booked for a sleep study on 2025-03-03").cap == 1


def test_quantities_convert_between_units():
    pairs = [("38.5 C", "101.3 F"), ("80 kg", "176 lb"), ("24 months", "2 years"), ("5'10\"", "178 cm"), ("$2k", "$2,000"),
             ("12 g/dL", "120 g/L")]
    for a, b in pairs:
        qa, qb = find_quantities(a), find_quantities(b)
        assert len(qa) == 1 and len(qb) == 1 and same_quantity(qa[0], qb[0]), (a, b)
    assert not same_quantity(find_quantities("38.5 C")[0], find_quantities("102.5 F")[0])
    assert not same_quantity(find_quantities("80 kg")[0], find_quantities("80 lb")[0])
    assert find_quantities("at 3 in the morning") == ()
    assert rewrite_units("fever of 101.3 F, 176 lb, for 2 years", find_quantities("38.5 C 80 kg 24 months")) == \
        "fever of 38.5 C, 80 kg, for 24 months"


def test_typos_are_repaired_toward_the_claims_but_real_words_are_not():
    assert repair_typos("The ptaient has a hsitory of asthma.", ["patient", "history", "asthma"]) == \
        "The patient has a history of asthma."
    # "adduction" is an English word: a different fact, never a typo of "abduction"
    assert repair_typos("Weak adduction of the hip.", ["abduction"]) == "Weak adduction of the hip."
    # ambiguous: one edit from two claim words
    assert repair_typos("the cart", ["cast", "care"]) == "the cart"
    assert reader_view("Her tmeperature is 101.3 F.", ["Her temperature is 38.5 C."]) == "Her temperature is 38.5 C."


@pytest.mark.slow
def test_nli_judge_rates_written_values_converted_units_and_typos_as_leaked():
    from textleak.judges import make_judge

    judge = make_judge("nli")
    pairs = [
        ("The PostgreSQL host that pgloader connects to is named 'ariel'.",
         'pgloader says: FATAL Failed to connect to pgsql at "ariel" (port 5432): Connection refused. How do I fix it?'),
        ("The person's name is Sam.", "What are the symptoms that Sam may experience because of his neurological condition?"),
        ("The user's Linux username is rickard.", "Error: could not open /home/rickard/Documents/notes.txt (permission denied)"),
        ("Her temperature is 38.5 C.", "A 30-year-old woman comes with a cough. She has a fever of 101.3 F."),
        ("He weighs 80 kg.", "A 40-year-old man comes for a checkup. His weight is 176 lb."),
        ("The cough has lasted 24 months.", "He has had a cough for 2 years."),
        ("The patient has a history of hypertension.", "The ptaient has a hsitory of hyeprtension and asthma."),
    ]
    rated = judge.rate([[c] for c, _ in pairs], [d for _, d in pairs])
    ratings = [rs[0].rating for rs in rated]
    assert ratings[:3] == [1, 1, 1], ratings
    assert all(r in (1, 2) for r in ratings[3:6]), ratings
    assert ratings[6] == 1, ratings
    # a value the text does not hold changes nothing: a masked host stays unsupported
    masked = judge.rate([["The PostgreSQL host that pgloader connects to is named 'ariel'."]],
                        ['FATAL Failed to connect to pgsql at "<HOST>" (port 5432)'])
    assert masked[0][0].rating == 3


@pytest.mark.slow
def test_nli_judge_counts_claims_against_text_it_cannot_read_as_leaked():
    from textleak.judges import make_judge

    claim = "The patient has had a cough for three weeks."
    spanish = ("Un hombre de 45 años acude a la consulta por tos desde hace tres semanas. No tiene fiebre y "
               "nunca ha fumado. Su madre tiene diabetes y él trabaja como profesor en una escuela.")
    leaked = make_judge("nli").rate([[claim]], [spanish])[0][0]
    assert leaked.rating == 1 and leaked.detail["non_english"] == "es"
    read_anyway = make_judge("nli", non_english="judge").rate([[claim]], [spanish])[0][0]
    assert "non_english" not in read_anyway.detail
    with pytest.raises(ValueError, match="non_english"):
        make_judge("nli", non_english="exclude")


def test_clock_times_logins_joined_names_and_attached_sizes():
    assert value_verdict("The first error was logged at 03:12.", "2026/11/24 03:12:45 [error] connect() failed").cap == 2
    assert value_verdict("The accident happened around 7:40 pm.", "at approximately 19:40 the accident happened").cap <= 2
    assert value_verdict("The user logs into the server as deploy.", "deploy@bramble-vps01:~$ sudo tail").cap == 1
    assert value_verdict("The user works at Fenwick Bio.", "Author: Priya <priya.r@fenwickbio.com>").cap == 2
    assert value_verdict("The SD card's root partition is 29 GB.", "/dev/mmcblk0p2  29G  27G  96% / on the SD card").cap == 2
    assert [q.unit for q in find_quantities("29G 500M 2560Mi 5 g")] == ["gb", "mb", "mi", "g"]


def test_what_a_claim_says_the_text_mentions_is_its_value():
    assert value_verdict("The user mentions POS.", "our POS system crashed at noon").cap == 1
    assert value_verdict("The user mentions the e-mail address pansariani@icloud.com.", "mail me at pansariani@icloud.com").cap == 1
    assert value_verdict("The message is addressed to HR.", "Dear HR, I am writing to ...").cap == 1
    assert value_verdict("The user mentions UN.", "The agency wrote back.").cap == 3


def test_a_value_is_found_once_even_when_a_longer_one_contains_it():
    # the mention ("course Big Data notes") contains the name "Big Data" on both sides: one value, not two
    values = claim_values("The user mentions course Big Data notes.")
    assert [v.text for v in values] == ["Big Data"]
    assert value_verdict("The user mentions course Big Data notes.", "I study Big Data at night.").cap == 2


def test_names_in_any_script_and_without_their_accents():
    assert kinds("The bug is assigned to Tomasz Wróbel.") == {"Tomasz Wróbel": "name"}  # was cut at "Wr"
    assert value_verdict("The funeral is in Kraków.", "out all week (grandpa's funeral in Krakow, Poland)").cap == 1
    assert value_verdict("The user's doctor is José Núñez.", "Dr Jose Nunez saw me on Monday.").cap <= 2


def test_a_name_of_two_words_survives_one_typo_a_name_of_one_word_does_not():
    assert value_verdict("The user works at Zenith Bank.", "I dey work for Zenit bank Ikeja as operations officer").cap == 1
    assert value_verdict("The user's insurer is Blue Cross of Idaho.", "Insurer: Blue Cros of Idaho, member ID XJB441920337").cap <= 2
    # one letter makes another person, another host
    assert value_verdict("The user's sister Renata is a nurse.", "My brother Renato, who's a nurse in Milwaukee, says").cap == 3
    assert value_verdict("The host is named orion-db02.", "ssh to orion-db03 failed").cap == 3
    assert value_verdict("The user works at Zenith Bank.", "I work for Zenit Bunk in Ikeja").cap == 3  # two typos


def test_an_identifier_that_completes_the_claim_is_the_fact_unless_negated_beside_it():
    log = 'django.db.utils.OperationalError: connection to server at "10.14.3.22", port 5432 failed: FATAL:  database "ledger" does not exist'
    assert value_verdict("The database server's IP address is 10.14.3.22.", log).cap == 1
    assert value_verdict("The app's log folder is /var/log/chasqui.", "tail: cannot open '/var/log/chasqui' for reading").cap == 1
    # a proper name is not an identifier: its relation is still to be read
    assert value_verdict("The child's mother, Agnieszka Nowak, works as a planning officer.",
                         "Contact: mother Agnieszka Nowak, 8 Willow Close.").cap == 2
    # a negation beside the identifier turns it
    assert value_verdict("The nightly backup goes to /mnt/nas/backups.", "The nightly backup no longer goes to /mnt/nas/backups.").cap == 2


def test_money_as_it_is_written_around_the_world():
    same = [("1,234.56 euros", "1.234,56 €"), ("12,400 reais", "R$ 12.400,00"), ("$2,046.80", "2 046,80 $"),
            ("3.2 million rupees", "32 LPA"), ("850,000 naira", "₦850,000")]
    for a, b in same:
        qa, qb = find_quantities(a), find_quantities(b)
        assert len(qa) == 1 and len(qb) == 1 and same_quantity(qa[0], qb[0]), (a, b, qa, qb)
    assert find_quantities("1.234 kg")[0].value == 1.234  # a decimal point outside money stays one
    # a sum without its currency, beside the claim's word
    assert value_verdict("The user pays a monthly rent of 28,500 rupees.", "rent 28.5k har mahine 5 tareekh tak").cap <= 2
    assert value_verdict("The user's EMI is ₹11,200.", "emi 11200 hai, 14 emi baaki").cap == 1
    assert value_verdict("The user's EMI is ₹11,200.", "emi 11,900 hai, 14 emi baaki").cap == 3


def test_a_contracted_negation_at_the_end_of_the_window_turns_it():
    assert value_verdict("The backup target is /mnt/nas/backups.", "The backup target /mnt/nas/backups isn't").cap == 2


def test_a_mention_claim_is_stated_wherever_its_value_is_written():
    # the request atomizer's "The user mentions the year 2013." says only that 2013 is written: a year, an amount or a
    # date inside such a claim counts anywhere in the text, not only beside another word of the claim
    from textleak.judges.values import value_verdict

    assert value_verdict("The user mentions the year 2013.", "A follow-up set in 2013, the store is dilapidated.").cap == 1
    assert value_verdict("The user mentions an amount of $47,100.", "Trading shares: cost $39,000, fair value $47,100.").cap == 1
    assert value_verdict("The user mentions the year 2013.", "A follow-up set in 2014.").cap == 3
    assert value_verdict("The invoice total was $47,100.", "Fair value $47,100 at year end.").cap == 3  # a weak value beside no claim word


def test_no_before_a_number_is_the_number_sign_not_a_negation():
    # "report no. 24-318877" abbreviates "number": read as a negation it turned the sentence's polarity and kept
    # a claim stated word for word at 2
    from textleak.judges.values import NEGATION

    assert value_verdict("The police report number is 24-318877.", "Austin Police report no. 24-318877.").cap == 1
    assert not NEGATION.search("Flat No. 5, ticket no #442, invoice No 2291")
    assert NEGATION.search("There is no fever.") and NEGATION.search("No, she does not smoke.") and NEGATION.search("no.")


def test_clock_times_are_read_as_the_claims_write_them_and_number_words_stay_words():
    claims = ["The user has 14 EMIs left to pay.", "The accident happened around 7:40 pm.", "His reticulocyte count is 9%."]
    view = reader_view("A nine-year-old; fourteen instalments remain; at approximately 19:40 one car hit another.", claims)
    assert "approximately 7:40 pm one" in view
    # number words stay as written: rewritten toward the claims' digits ("nine-year-old" -> "9-year-old" for a claim's
    # "9%"), they changed what the cross-encoder read and flipped an unrelated claim of the record (evaluation set -0.005)
    assert "nine-year-old" in view and "fourteen instalments" in view
    # a time written one way by one claim and another way by another stays as the text wrote it
    assert reader_view("at 19:40", ["It happened at 7:40 pm.", "It happened at 19:40."]) == "at 19:40"


def test_a_grouped_phone_number_is_one_value_found_with_or_without_the_country_code():
    assert [v.text for v in claim_values("Nuala Keane's phone number is 086 555 0133.")] == ["086 555 0133"]
    assert value_verdict("Nuala Keane's phone number is 086 555 0133.", "Nuala Keane, phone +353 86 555 0133").cap == 1
    # a shared leading group is not the number (it used to be taken for it: "086" alone was the value)
    assert value_verdict("Nuala Keane's phone number is 086 555 0133.", "Nuala Keane, phone 086 555 0134").cap == 3


def test_a_time_span_in_several_units_is_one_quantity():
    spans = {q.text: round(q.value * 86400) for q in find_quantities("lag 5m40s, uptime 2d3h, took 1h 20min")}
    assert spans == {"5m40s": 340, "2d3h": 183600, "1h 20min": 4800}
    assert find_quantities("5m 5m") == ()  # a unit twice is not one span
    assert "340 seconds" in reader_view("Replica lag is 5m40s in Grafana.", ["The replica lag is 340 seconds."])


def test_a_time_zone_is_its_offset_however_a_log_writes_it():
    """"UTC+05:30" is a zone, not the clock time 05:30; a pasted log writes it "+0530" after a time, a year or a
    masked date, and an e-mail header "-0800"; another zone is not it, and neither is a plain number."""
    from textleak.text.clock import utc_offsets

    assert kinds("The user's commits are in the UTC+05:30 time zone.") == {"UTC+05:30": "offset"}
    assert utc_offsets("Date:   Tue Nov 17 14:03:07 2026 +0530") == {330}
    assert utc_offsets("Date:   <DATE_TIME> +0530") == {330}
    assert utc_offsets("Wed, 18 Nov 2026 09:41:07 -0800 (PST)") == utc_offsets("GMT-8") == {-480}
    assert utc_offsets("2026-11-25T03:15:02.114+05:30") == {330}
    assert utc_offsets("call +0530 now, or UTC+25") == frozenset()
    claim = "The user's commits are in the UTC+05:30 time zone."
    assert value_verdict(claim, "commit 9f2c41e\nAuthor: <PERSON>\nDate:   <DATE_TIME> +0530\n\n    wip").cap == 2
    assert value_verdict(claim, "commit 9f2c41e\nAuthor: <PERSON>\nDate:   <DATE_TIME> +0100\n\n    wip").cap == 3
    assert value_verdict("The meeting is at 05:30.", "Date: Tue Nov 17 14:03:07 2026 +0530").cap == 3


def test_dates_and_money_as_users_write_them_in_other_languages():
    """Mixed-language requests write dates day first with their own month names and money with their own
    currencies and separators: "30 kwietnia" is 30 April, "3 200 zł" is 3,200 zł, "CHF 2'400" is 2,400 CHF."""
    from textleak.text.dates import find_dates

    def readings(text):
        return [sorted(d.readings) for d in find_dates(text)]

    assert readings("We moved out 30 kwietnia.") == [[(None, 4, 30)]]
    assert readings("el 3 de febrero de 2024") == [[(2024, 2, 3)]]
    assert readings("am 12. März 2025") == [[(2025, 3, 12)]]
    assert readings("le 4 juin 2024") == [[(2024, 6, 4)]]
    assert readings("I run 3 mart stores") == []  # an English word, not a month
    assert value_verdict("The user moved out on 30 April.", "We moved out 30 kwietnia, the flat was clean.").cap == 1

    def money(text):
        return [(q.value, q.dimension) for q in find_quantities(text)]

    assert money("rent 3 200 zł miesięcznie") == money("rent 3,200 zł a month") == [(3200.0, "money:pln")]
    assert money("CHF 2'400") == [(2400.0, "money:chf")]
    assert money("1 299,00 PLN") == [(1299.0, "money:pln")]
    assert money("I paid 3 200") == []  # spaces between thousands only beside a currency
    assert value_verdict("The rent is 3,200 zł a month.", "rent 3 200 zł miesięcznie plus media").cap <= 2


def test_latin_text_the_stop_word_lists_do_not_place_is_classified():
    """A Swedish cover letter is not English (the judge cannot read it); an English log, form or code with few
    function words stays English."""
    from textleak.text.language import detect_language

    assert detect_language("Hej! Kan du göra mitt personliga brev mindre stelt? Jag söker tjänsten som Senior Data Analyst "
                           "på Norrland Energy i Umeå, sista ansökningsdag 14 mars.").language == "sv"
    assert detect_language("Backup-ul de noapte către Synology-ul fratelui meu din Cluj nu mai merge de când am schimbat "
                           "routerul săptămâna trecută.").language == "ro"
    for english in ("ERROR 1 --- [pool-3-thread-8] c.h.dispatch.route.RoutePlanner : Planning failed for depot NL-RTM-04 "
                    "(412 stops) java.lang.OutOfMemoryError: Java heap space",
                    "Name: Mary Jane Watson\nDate of birth: 1990-03-02\nCity: New York\nPolicy: AB-1234-55\nAmount: $1,200",
                    "def total(rows):\n    return sum(r['price'] * r['qty'] for r in rows if r['status'] != 'refunded')"):
        assert detect_language(english).english, english


def test_a_name_written_only_negated_is_written_not_stated():
    """"so it's not OOMKilled" writes the value and denies the claim: not rated 1 by the naming rule (still
    not 3: the value is written). A name written once plainly, or beside a negated verb, is still stated."""
    assert value_verdict("The container was OOMKilled.", "Reason: Error (so it's not OOMKilled, memory looks fine)").cap == 2
    assert value_verdict("The container was OOMKilled.", "Last State: Terminated\nReason: OOMKilled").cap == 1
    assert value_verdict("The user's Linux username is rickard.", "my username isn't rickard, it is rick").cap == 2
    assert value_verdict("The user's Linux username is rickard.", "cannot open /home/rickard/Documents: no such file").cap == 1
    assert value_verdict("The PostgreSQL host is named ariel.", 'Failed to connect to pgsql at "ariel"').cap == 1
    # two names in different lines: each written plainly somewhere
    assert value_verdict("The user's Raspberry Pi is named hauspi.", "My Raspberry Pi 4 runs Home Assistant.\n<PERSON>@hauspi:~ $ df -h /").cap == 1


def test_a_number_after_no_dot_is_not_negated():
    """"Member no. VF-0093317" abbreviates "number": the naming rule still rates the claim 1."""
    assert value_verdict("The user's member number is VF-0093317.", "Member no. VF-0093317, joined 2021").cap == 1


def test_names_a_line_break_splits_compounds_hide_or_an_ampersand_joins_are_found():
    """Wrapped lines, hashtags, file names and "&": a reader sees the name whole."""
    assert value_verdict("The couple met at the Crux Wall climbing gym.", "Back in 2019, at the Crux\nWall climbing gym, he fell").cap <= 2
    assert value_verdict("The user's daughter goes to Ysgol Glan Usk.", "her teacher at Ysgol Glan\nUsk says she is fine").cap <= 2
    assert value_verdict("The groom's first name is Sam.", "- groom: <PERSON>\n#SamAndRuvi2025 on all the posts please").cap == 1
    assert value_verdict("The groom's first name is Sam.", "#SamsungGalaxy deals").cap == 3
    assert value_verdict("The bakery is called Crumb & Kettle.", "attached: payments_CrumbKettle_2024-11.xlsx").cap == 1
    assert value_verdict("The user's shop is called Bramble & Oak.", "server: shop.brambleandoak.co.uk").cap == 1
    assert value_verdict("The user's shop is called Bramble & Oak.", "I run Bramble and Oak candles").cap == 1
    assert value_verdict("The user's shop is called Bramble & Oak.", "deploy@bramble-vps01:~$ uptime").cap == 3  # one word of it
    # an address's parts on two lines are not a name split by a line break
    assert value_verdict("The user's work e-mail address is priya.r@fenwickbio.com.", "Priya R.\nfenwickbio.com").cap == 3


def test_the_review_of_2026_11_29_cases_never_lose_a_written_value():
    """What a review of the day's rules found moving claims toward privacy, each pinned (old cap or better)."""
    from textleak.text.language import detect_language
    from textleak.text.quantities import find_quantities

    assert value_verdict("The user visited 2 Mayo Clinic locations.", "I have been to two Mayo Clinic locations.").cap <= 2
    from textleak.text.coarse import specific_values

    assert all(v.kind != "date" for v in specific_values("The user ordered 4 Haziran rugs."))  # a claim reads English months
    assert value_verdict("The user ate 3 Mars bars.", "I ate three Mars bars yesterday.").cap == 1
    assert value_verdict("The user plans to try 10 km runs each week.", "I run 10 km each week.").cap == 1  # "try" is no lira
    assert value_verdict("The user had lunch with Ron 2 days ago.", "I had lunch with Ron on Monday.").cap <= 2
    assert value_verdict("The user's ticket cost $45.", "Ticket $45 120 seats left").cap <= 2  # not $45,120
    for written in ("server timezone: utc+05:30", "Server timezone is +05:30.", "last login 2026-03-03T14:03:07.114582+05:30"):
        assert value_verdict("The user's server is set to UTC+05:30.", written).cap <= 2, written
    assert value_verdict("The user's meeting is at 10:00 UTC+1.", "The meeting is at 10:00 CET.").cap <= 2
    assert value_verdict("The user ran 10 km on 3 March 2025.", "My longest km split happened in March.").cap <= 2
    assert value_verdict("The user earns 45000 NOK a month.", "I earn 45 000 kr a month.").cap <= 2
    assert value_verdict("The user is 26 years old.", "Temperatures stayed in the mid-twenties all week.").cap == 3
    assert value_verdict("The user is 18 years old.", "I'm in my late teens").cap == 2
    assert detect_language("Team roster: Piotr Nowak, Tomasz Wojcik, Katarzyna Zielinska, Agnieszka Kaminska, Marcin Lewandowski").english


@pytest.mark.parametrize("text, money", [("100 " * 4000, []), ("100'" * 25000, []), ("1 200 " * 5000 + "zł", [(1200.0, "money:pln")]),
                                         ("Total 7" + " " * 20000 + "items", [])])
def test_numeric_dumps_are_no_money_and_end_in_one_amount(text, money):
    """A long run of numbers is no amount of money (digit groups are bounded at four: unbounded, the review measured
    22 s and 261 s on these), and a currency after it takes one group of thousands, not the whole run. A digit before a
    long run of spaces (fixed-width dumps) no longer lets the scale word's spaces trade with the currency's (5 s for
    6,000 spaces, found by the review of stop 40)."""
    from textleak.text.quantities import find_quantities

    assert [(q.value, q.dimension) for q in find_quantities(text) if q.dimension.startswith("money")] == money


@pytest.mark.parametrize("claim, text, rival", [
    ("The user's GPA is 3.4.", "i'm a sophomore, gpa 2.4, and this is my third extension", "2.4"),
    ("The police report number is 24-318877.", "Police report number is 24-318787.", "24-318787"),
    ("The user was charged €380 for the scratch.", "They charged me €38 for a scratch on the front bumper.", "38"),
    ("The user has 14 EMIs left to pay.", "EMI is ₹21,100 and only 4 EMIs are left.", "4"),
    ("The member has 48,210 points.", '"tier": "GOLD", "points": 4821,', "4821"),
    ("The user has worked at Shopify since March 2021.", "Backend engineer at Shopify since March 2023 (Go, Kafka).", "2023"),
    ("The crashing pod is ledger-worker-7d9f8c6b5-x2kqp.", "ledger-worker-7d9f8c6b5-x2kqq   0/1   CrashLoopBackOff", "ledger-worker-7d9f8c6b5-x2kqq"),
])
def test_a_near_miss_where_the_claims_value_is_written_nowhere_is_a_rival(claim, text, rival):
    """Rule R: one digit or character changed, dropped or swapped, in the claim's slot, and the claim's own value
    written nowhere in the text: another value, which the cross-encoder reads through."""
    from textleak.judges.values import rival_value

    assert rival_value(claim, text, text) == rival


@pytest.mark.parametrize("claim, text", [
    ("The user will attend the conference from 12 to 15 June 2025.", "I'll attend the summit from 12.06.2025 to 15 June 2025."),  # 12 is the date's day
    ("Nuala Keane's phone number is 086 555 0133.", '"full_name": "Nuala Keane", "phone": "+353 86 555 0133"'),  # found in another form
    ("The rent is 3,200 zł a month.", "rent 3 200 zł miesięcznie plus media."),  # spaces between thousands
    ("His CSF protein is 1.8 g/L.", "His spinal fluid protein is 180 mg/dL."),  # another unit
    ("She takes lithium 900 mg daily.", "She has taken 300 mg of lithium carbonate three times a day."),  # arithmetic
    ("The user's GPA is 3.4.", "The user earned 2.4 credits in chemistry; her GPA is not stated."),  # another slot
    ("The user has 14 EMIs left to pay.", "The user pays 4 times a year."),
    ("The user's GPA is 3.4.", "Her GPA is 3.4 and she studies at 2.4 times the pace."),  # the claim's value is written
    ("The container's memory limit is 512Mi.", "resources:\n  limits:\n    memory: 512Mi"),
])
def test_no_rival_where_the_value_is_written_or_the_slot_differs(claim, text):
    from textleak.judges.values import rival_value

    assert rival_value(claim, text, text) is None


@pytest.mark.slow
def test_nli_judge_rates_a_near_miss_value_no_better_than_similar():
    """The cross-encoder reads "24-318787" as the claim's "24-318877" (p(same) 0.9998): rated 2, with the rival
    in the detail; the claim's own value keeps its 1."""
    from textleak.judges import make_judge

    judge = make_judge("nli")
    claim = "The police report number is 24-318877."
    changed, same = judge.rate([[claim], [claim]], ["Police report number is 24-318787.", "Police report number is 24-318877."])
    assert changed[0].rating == 2 and "318787" in changed[0].detail["rival"], changed[0]
    assert changed[0].score >= 0.5
    assert same[0].rating == 1


def test_a_long_code_is_found_in_other_spacing():
    """Rule SP: an IBAN or account number written with or without its spaces is the same value; a digit changed is not."""
    spaced = "Connacht Flour Mills' IBAN is IE64 IRCE 9205 0112 3456 78."
    assert value_verdict(spaced, "Suppliers include Connacht Flour Mills (IBAN IE64IRCE92050112345678).").cap == 1
    joined = "The supplier IBAN is IE64IRCE92050112345678."
    assert value_verdict(joined, "Pay Connacht Flour Mills at IE64 IRCE 9205 0112 3456 78 every Friday.").cap == 1
    assert value_verdict(joined, "Pay Connacht Flour Mills at IE64 IRCE 9205 0112 3456 79 every Friday.").cap == 3
    # a short code is not looked for across tokens: "AB 12 34" is not "AB1234" written by chance
    assert value_verdict("The user's code is AB1234.", "Rooms AB 12 34 are booked.").cap == 3


@pytest.mark.parametrize("claim, span, rival", [
    ("The scratch is on the rear bumper.", "They charged me for a scratch on the front bumper.", "front"),
    ("The van belongs to the upstairs tenant.", "A white van belonging to the downstairs tenant keeps blocking the bin store.", "downstairs"),
    ("The user is applying for a Senior Data Analyst role.", "Applying for: Junior Data Analyst, Brightwater Insurance", "junior"),
    ("The user had a positive COVID test.", "I had a negative COVID test on Monday.", "negative"),
])
def test_an_opposite_in_the_claims_place_is_a_rival(claim, span, rival):
    """Rule AN: an attribute's opposite, where the span does not write the claim's word."""
    from textleak.judges.values import rival_value

    assert rival_value(claim, span, span) == rival


@pytest.mark.parametrize("claim, span", [
    ("The scratch is on the rear bumper.", "A scratch on the rear bumper, not the front one."),  # the claim's word is written
    ("The office is north of the river.", "The river runs south of the office."),  # a converse relation
    ("The user is the groom's younger brother.", "I'm writing a speech for my older brother's wedding."),  # kinship: not listed
    ("The user's mother is 67 years old.", "She's 67 and lives alone since my dad passed."),
])
def test_no_opposite_rival_for_a_written_word_a_converse_or_kinship(claim, span):
    from textleak.judges.values import rival_value

    assert rival_value(claim, span, span) is None


@pytest.mark.parametrize("claim, text", [
    # the review of stop 40: each of these texts states the claim, and each once made a "rival" (1 -> 2)
    ("The museum had 1,234 visitors.", "The museum had 1 234 visitors."),  # space thousands
    ("The member has 48,210 points.", "The member has 48.210 points."),  # dot thousands
    ("The user bought 12 eggs and 112 eggs.", "I bought a dozen eggs and then 112 eggs."),  # the claim's own number
    ("The user deadlifts 180 kg and squats 80 kg.", "I deadlift 180 kg and squat 176 lb."),  # "80 kg" inside "180 kg"
    ("The user uses GPT-4 at work.", "At work I use GPT4 every day."),  # a code without its hyphen
    ("The user's order is #A48213.", "Order A-48213 shipped."),
    ("The app runs v2.3.1.", "The app runs version 2.3.1."),
    ("The user's passport number is K1234567.", "Passport: K 1234567, expires 2031."),
    ("The user's postcode is M1 1AE.", "Postcode M11AE."),
    ("The user has 12,000 followers.", "I have 12k followers, my friend has 13,000 followers."),  # scale word
    ("The user paid 300 dollars.", "I paid three hundred dollars, the fee was 30 dollars."),  # number words
    ("The user's son is 5.5 years old.", "My son is five and a half, his friend is 6.5 years old."),
    ("The user has type 2 diabetes.", "I was diagnosed with type II diabetes; my sister has type 1."),  # Roman numeral
    ("The user was born in 1985.", "I was born in '85 (my brother was born in 1986)."),
    ("The user studied at Leeds from 2014 to 2018.", "Leeds, 2014-18; then I studied at York from 2019."),
    ("The user's temperature was 38.5 °C.", "Temperatur 38,5 °C, my temperature yesterday 38.4 °C."),  # decimal comma
    ("The user runs version 3.11.4 of the tool.", "I run version 3.11.4 of the tool, not 3.11.5."),
    ("The user left Google in 2021.", "I quit Google in 2021, right after my promotion."),  # "left", a verb
    ("The user is a senior engineer.", "I'm a Sr. engineer and I mentor the junior devs."),  # another noun
    ("The user lives in northern Italy.", "I live in the north of Italy, in Milan, but grew up in southern Spain."),
    ("The user's COVID test was not positive.", "My COVID test came back negative."),  # a negated claim
    ("The user's GP is female.", "My GP is a woman; the male nurse took my bloods."),
])
def test_no_rival_where_the_text_states_the_claim_in_another_form(claim, text):
    from textleak.judges.values import rival_value

    assert rival_value(claim, text, text) is None


def test_a_rival_is_the_same_whatever_the_hash_seed():
    """The number compared is the whole written group ("3.11.4"), never an element picked from a set (which
    PYTHONHASHSEED reorders): two interpreters with different seeds agree."""
    import subprocess
    import sys

    code = ("from textleak.judges.values import rival_value as R; "
            "print(R('The user runs version 3.11.4 of the tool.', 'I run version 3.11.5 of the tool.', 'I run version 3.11.5 of the tool.'))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)},
                           check=True).stdout.strip() for seed in (0, 1, 2, 7)}
    assert outs == {"3.11.5"}


@pytest.mark.parametrize("claim, text", [
    ("The user's account number is 1234567890.", "Wire it to account number 12345678901."),
    ("The user's licence number is AB12345678.", "Lab 12: 345 678 samples processed."),
    ("The user's membership ID is ab1234567890.", "Tab 12 | 34 | 56 | 78 | 90"),
    ("The user's phone number is 0412 345 678.", "Batch 041234567812 shipped."),
])
def test_a_long_code_in_other_spacing_is_matched_on_whole_tokens_only(claim, text):
    """Rule SP matches the code's letters and digits where tokens start and end, not inside a longer number or across
    the middle of a word ("Lab 12: 345 678" is not "AB12345678")."""
    assert value_verdict(claim, text).cap == 3


@pytest.mark.parametrize("claim, other, same", [
    ("The invoice 20931 was for 7 hours of work.", "The invoice 20931 was for 4 hours of work.", "The invoice 20931 was for seven hours of work."),
    ("Customer 88213 has 5 orders.", "Customer 88213 has 2 orders and lives in Leeds.", "Customer 88213 has 5 orders and lives in Leeds."),
    ("Order 4471932 contained 3 laptops.", "Order 4471932 contained 2 laptops and a mouse.", "Order 4471932 contained 3 laptops and a mouse."),
])
def test_a_sentence_with_the_claims_values_but_another_number_does_not_state_it(claim, other, same):
    """The values (an invoice, a customer, an order) are written, so the claim is not unsupported; but "4 hours"
    does not state "7 hours": the value rules allow 2, not 1, and the judge's "stated where its values are
    written" does not fire on it (it rated the first pair 1 before)."""
    from textleak.judges import make_judge

    assert value_verdict(claim, other).cap == 2
    assert value_verdict(claim, same).cap == 1
    judge = make_judge("nli")
    changed, stated = judge.rate([[claim], [claim]], [other, same])
    assert changed[0].rating == 2 and "stated_at_values" not in changed[0].detail, changed[0]
    assert stated[0].rating == 1


def test_values_written_together_with_a_doubtful_reading_are_stated_a_clear_rejection_is_not():
    """Every value in one sentence and the cross-encoder in doubt about the framing ("a small team at Hollis
    Freight" for "works at Hollis Freight": p(unsupported) 0.50) is rated 1; a sentence the cross-encoder reads as
    unsupported (p 0.86: "rejected by Hollis Freight") keeps the values' 2."""
    from textleak.judges import make_judge
    from textleak.judges.nli import STATED_AT_VALUES_UNSUPPORTED

    judge = make_judge("nli")
    claim = "The user works at Hollis Freight."
    team, rejected = judge.rate([[claim], [claim]], ["We're a small team at Hollis Freight in Rotterdam. Our dispatch service crashed.",
                                                      "I was rejected by Hollis Freight last week after the interview."])
    assert team[0].rating == 1 and "stated_at_values" in team[0].detail, team[0]
    assert 0.5 <= team[0].detail["p"][2] < STATED_AT_VALUES_UNSUPPORTED
    assert rejected[0].rating == 2 and rejected[0].detail["p"][2] >= STATED_AT_VALUES_UNSUPPORTED, rejected[0]


@pytest.mark.parametrize("claim, text, cap", [
    # negated where the value is written: written (2), not stated (1)
    ("The user's username is rickard.", "My username is not rickard.", 2),
    ("The user's username is rickard.", "I'd never pick rickard as a username.", 2),
    ("The user's username is rickard.", "My username is no longer rickard.", 2),
    ("The user's username is rickard.", "rickard is not my username, it's my brother's.", 2),
    ("The user's pseudonym is 'Bluefox'.", "Nobody calls me 'Bluefox'.", 2),
    ("The PostgreSQL host that pgloader connects to is named 'ariel'.", 'Failed to connect to pgsql at "ariel" (port 5432): could not connect', 1),
    # a name that is also a word, where the writer capitalises; not inside Mc/Mac names
    ("The user's brother is named Will.", "My brother says he will visit soon.", 3),
    ("The user's brother is named Will.", "My brother Will says hi.", 1),
    ("The user's daughter is named Hope.", "my daughter hope (9) was in back, we took her to the ER.", 1),
    ("The user's brother is named Will.", "My brother will is flying in on Friday.", 1),  # lowered right after its bearer
    ("The user's colleague Bill approved the budget.", "The colleague who approved the budget bill left.", 3),
    ("The user's boss is named Donald.", "We had lunch at McDonald's with my boss.", 3),
    ("The user's friend is named Kenzie.", "My friend and I watched a MacKenzie documentary.", 3),
    # a name joined without spaces only inside an address or a domain
    ("The user's tutor is named Ed Ward.", "My tutor Edward Smith is strict.", 3),
    ("The user works at Green Tree Capital.", "I visited an evergreen tree capital of the region.", 3),
    ("The user works at Fenwick Bio.", "Reply to priya.r@fenwickbio.com please.", 2),
    # a longer number only with a country code written apart
    ("The user's customer ID is 8812345.", "Shipment 98812345 left the warehouse today.", 3),
    ("The user's phone number is 555 0133.", "Invoice total 15550133 is wrong.", 3),
    ("The user's phone number is 086 555 0133.", "Call me on +353 86 555 0133.", 1),
    ("The user's phone number is 800-555-0199.", "Call 1-800-555-0199 now.", 1),
    # the same unit: a small change is written, not stated; another unit within a conversion's rounding is stated
    ("The patient weighs 80 kg.", "On admission she weighed 81 kg.", 2),
    ("The user's rent is £725 per month.", "I rent a flat, rent is £730/month.", 2),
    ("The patient weighs 80 kg.", "The patient weighs 176 lb.", 1),
    # identifiers and units parsed whole
    ("The user's app sends mail through mailer-01.acme.com.", "The relay mailer-01.other.org rejected the message.", 3),
    ("Her blood pressure is 90/60 mm Hg.", "Her blood pressure is 120/60 mm Hg and pulse 88/min.", 3),
])
def test_the_second_review_of_2026_11_29_values_match_only_what_is_written(claim, text, cap):
    """Constructed cases from a review of the value rules (docs/judges.md, rules .25): each was forced to 1 (or 2) by a
    false match or a missed negation before."""
    assert value_verdict(claim, text).cap == cap


@pytest.mark.parametrize("claim, text, cap", [
    ("The user's rent is $1,200.", "Our building has 1200 tenants and the rent keeps rising.", 3),
    ("The invoice total is $3,400.", "The invoice lists 3400 units of paper.", 3),
    ("The user's rent is $1,200.", "the rent is 1200 a month", 1),
    ("The user's EMI is ₹11,200.", "my emi 11200 and 14 instalments remain", 1),
])
def test_a_number_that_counts_things_is_no_sum_of_money(claim, text, cap):
    """A bare number is read as the claim's money ("emi 11200") unless it counts things ("1200 tenants")."""
    assert value_verdict(claim, text).cap == cap
