"""Fictional control codes (seed 004, appendix A.2): one invented value per entity type, seeded.

The ``"patterns"`` source follows the paper's generator: CODE = 5 characters of [A-Z0-9], "/", 2
more; PERSON = title + first name + surname; DATETIME = a uniform day in 1990-2024 as "05 March
2001"; LOC = a category (city, country, address, infrastructure) then an item; ORG = one of ten
organisations; DEM = one of four age/job/heritage shapes; QUANTITY = a percentage or a dollar
amount. MISC gets no value (the paper skips it). The released code seeds nothing; here every draw
comes from ``record_seed(seed, index)``, so codes are the same for the same index on any machine.
The lists are textleak's own. ``"faker"`` draws the values from Faker instead (seeded the same way);
types it has no provider for fall back to the patterns.

Other types (e.g. MIMIC markers like HOSPITAL) get a pattern value ``<Type> <number>``.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Iterable, Sequence

from textleak.controlled.control_codes import ControlCode
from textleak.controlled.entity_metrics import entity_key
from textleak.text.seeds import record_seed

TITLES = ("Mr", "Ms", "Dr", "Prof")
FIRST_NAMES = ("Alex", "Blake", "Casey", "Dana", "Elliot", "Finley", "Harper", "Jordan", "Kai", "Logan", "Morgan", "Quinn", "Riley", "Skyler")
SURNAMES = ("Adams", "Baker", "Carson", "Dawson", "Ellis", "Foster", "Griffin", "Hayes", "Irwin", "Johnson", "Kennedy", "Lewis")
LOCATIONS = {
    "city": ("Springfield", "Riverton", "Lakeside", "Fairview", "Millbrook"),
    "country": ("Freedonia", "Westland", "Norvania", "Estoria", "Valdoria"),
    "address": ("12 Maple Street", "48 Harbour Road", "7 Station Lane"),
    "infrastructure": ("Central Station", "North Bridge", "Eastgate Airport"),
}
ORGANIZATIONS = (
    "Northwind Logistics", "Bluegate Insurance", "Harbourview Bank", "Meridian Health Trust", "Stonebridge University",
    "Greenfield Energy", "Silverline Telecom", "Oakridge Town Council", "Crescent Media Group", "Summit Engineering",
)
JOBS = ("teacher", "nurse", "engineer", "farmer", "accountant", "journalist", "electrician", "pharmacist", "driver", "architect")
HERITAGES = ("Irish", "Portuguese", "Greek", "Armenian", "Lebanese", "Chilean", "Vietnamese", "Ghanaian")
_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_DAY0, _DAYS = date(1990, 1, 1), (date(2024, 12, 31) - date(1990, 1, 1)).days

SKIPPED_TYPES = frozenset({"MISC"})


def pattern_value(etype: str, rng: random.Random) -> str:
    """One fictional value of a type from the paper's patterns."""
    if etype == "CODE":
        return "".join(rng.choice(_CHARS) for _ in range(5)) + "/" + "".join(rng.choice(_CHARS) for _ in range(2))
    if etype == "PERSON":
        return f"{rng.choice(TITLES)} {rng.choice(FIRST_NAMES)} {rng.choice(SURNAMES)}"
    if etype == "DATETIME":
        return (_DAY0 + timedelta(days=rng.randint(0, _DAYS))).strftime("%d %B %Y")
    if etype == "LOC":
        return rng.choice(LOCATIONS[rng.choice(sorted(LOCATIONS))])
    if etype == "ORG":
        return rng.choice(ORGANIZATIONS)
    if etype == "DEM":
        shape = rng.randrange(4)
        if shape == 0:
            return f"{rng.randint(18, 85)}-year-old {rng.choice(JOBS)}"
        if shape == 1:
            return f"{rng.choice(HERITAGES)} descent"
        if shape == 2:
            return rng.choice(JOBS).title()
        return f"{rng.randint(18, 85)}-year-old"
    if etype == "QUANTITY":
        return f"{rng.randint(1, 100)}%" if rng.random() < 0.5 else f"${rng.randint(1, 999_999):,}"
    return f"{etype.replace('_', ' ').title()} {rng.randint(1, 99)}"


def _faker_value(etype: str, fake, rng: random.Random) -> str | None:
    if etype == "PERSON":
        return f"{rng.choice(TITLES)} {fake.first_name()} {fake.last_name()}"
    if etype == "LOC":
        return rng.choice([fake.city, fake.country, fake.street_address])()
    if etype == "ORG":
        return fake.company()
    if etype == "DATETIME":
        return fake.date_between(_DAY0, date(2024, 12, 31)).strftime("%d %B %Y")
    if etype == "DEM":
        return f"{rng.randint(18, 85)}-year-old {fake.job().lower()}"
    return None


class FictionalCodeGenerator:
    """``FictionalCodeGenerator(seed=0).generate(["PERSON", "LOC"], index=3)`` -> a fictional ControlCode.

    ``avoid`` values (e.g. the real values of the ICL context) are never produced: a colliding draw
    is redrawn (up to 50 times, then an error), so blocking the real values cannot block the
    fictional ones.
    """

    SOURCES = ("patterns", "faker")

    def __init__(self, seed: int = 0, source: str = "patterns", values_per_type: int = 1):
        if source not in self.SOURCES:
            raise ValueError(f"source must be one of {self.SOURCES}, got {source!r}")
        self.seed = seed
        self.source = source
        self.values_per_type = values_per_type
        self._faker = None

    def _fake(self, seed: int):
        if self._faker is None:
            from faker import Faker

            self._faker = Faker("en_US")
        self._faker.seed_instance(seed)
        return self._faker

    def generate(self, types: Iterable[str], index: int, avoid: Iterable[str] = ()) -> ControlCode:
        seed = record_seed(self.seed, index, "")
        rng = random.Random(seed)
        fake = self._fake(seed) if self.source == "faker" else None
        banned = {entity_key(v) for v in avoid}
        pairs = []
        for etype in dict.fromkeys(t.upper() for t in types):
            if etype in SKIPPED_TYPES:
                continue
            for _ in range(self.values_per_type):
                for _attempt in range(50):
                    value = (_faker_value(etype, fake, rng) if fake is not None else None) or pattern_value(etype, rng)
                    if entity_key(value) not in banned:
                        break
                else:
                    raise RuntimeError(f"record {index}: could not draw a {etype} value outside the real values")
                pairs.append((etype, value))
        return ControlCode.from_pairs(pairs)


def types_of(codes: Sequence[ControlCode]) -> list[str]:
    """Entity types over several codes, in first-occurrence order."""
    return list(dict.fromkeys(t for c in codes for t in c.types))
