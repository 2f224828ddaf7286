"""Every option of the semantic-leakage pipeline, declared once.

:func:`textleak.leakage.evaluate_leakage` takes a :class:`LeakageConfig` (or its fields as keyword
arguments); the ``semantic_leakage`` metric takes its fields at load time, ``textleak evaluate``
derives one flag per field (:mod:`textleak.config`), and the study carries one as its ``leakage``
section. Policies are documented on their fields and pinned by tests (docs/semantic_leakage.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from textleak.config import check_choice
from textleak.registry import atomizers, judges, linkers

KNOWLEDGE_STRATEGIES = ("random", "first", "last", "release_shuffle")


@dataclass
class LeakageConfig:
    """Options of :func:`textleak.leakage.evaluate_leakage` (see each field's help)."""

    judge: Any = field(default="nli", metadata={
        "help": "judge of claim support (a registered name, or a Judge object in the API)", "choices": lambda: judges.names()})
    judge_options: dict[str, Any] = field(default_factory=dict, metadata={
        "help": "options of the judge, e.g. mode=logprob n=3 for the llm judge", "flag": "--judge-option"})
    llm: Any = field(default=None, metadata={
        "help": "LLM spec for the llm judge, the llm atomizer and paraphrasing: embedded, hf:<id|path>, openai:<model>@<url>",
        "flag": "--judge-llm", "deprecated_flags": ("--llm",), "metavar": "SPEC"})
    atomizer: Any = field(default="rules", metadata={
        "help": "how records become claims (registered name, or an Atomizer object)", "choices": lambda: atomizers.names()})
    atomizer_options: dict[str, Any] = field(default_factory=dict, metadata={
        "help": "options of the atomizer", "flag": "--atomizer-option"})
    linker: Any = field(default="bm25", metadata={
        "help": "how the adversary links known claims to a sanitized record: bm25 (paper: document index, concatenated "
                "query), bm25-release (claim index + vote), rouge, dense", "choices": lambda: linkers.names()})
    linker_options: dict[str, Any] = field(default_factory=dict, metadata={
        "help": "options of the linker", "flag": "--linker-option"})
    k: int = field(default=3, metadata={"help": "claims the adversary knows per record"})
    knowledge: str = field(default="random", metadata={
        "help": "which claims the adversary knows: random (seeded per record), first, last, or release_shuffle "
                "(the released code's single shuffled stream)", "choices": KNOWLEDGE_STRATEGIES})
    paraphrase_knowledge: bool = field(default=False, metadata={
        "help": "paraphrase the known claims with the LLM (appendix C.2.2) so linking cannot rely on verbatim overlap"})
    seed: int = field(default=0, metadata={"help": "seed of every random choice (per record: derived from the record index)"})
    alignment: str = field(default="auto", metadata={
        "help": "how sanitized records map to originals: index (sanitized[i] came from original i), ids (sanitized_ids "
                "name the original of each), none (synthetic data: no linkage rate; refused for a set whose records carry ids or pair one-to-one "
                "with originals by wording), auto (ids when given, else index when the sizes match, else an error: "
                "never unaligned unless asked)",
        "cli_help": "how sanitized records map to originals: index (row i of --sanitized came from original i), ids (each "
                    "sanitized record names its original's id: an 'id' column, --id-column or --source-id-column), none "
                    "(synthetic data: no linkage rate; refused for a set whose records carry ids or pair one-to-one with "
                    "originals by wording), auto (ids when the sanitized records carry them, else index when the counts "
                    "match, else an error: never unaligned unless asked)",
        "choices": ("auto", "index", "ids", "none")})
    missing: str = field(default="original", metadata={
        "help": "an original whose sanitized record is missing (None, or no sanitized record names its id): original "
                "(it counts as released unsanitized: a failed sanitization is never privacy; counted and warned) or "
                "error",
        "cli_help": "an original whose sanitized record is missing (its text is null, or no sanitized record names its id): "
                    "original (it counts as released unsanitized: a failed sanitization is never privacy; counted and "
                    "warned) or error",
        "choices": ("original", "error")})
    unlinked: str = field(default="score_empty", metadata={
        "help": "a record no sanitized record shares a term with: score_empty (its claims rate as unsupported) or skip "
                "(left out of the privacy mean, the released code)", "choices": ("score_empty", "skip")})
    unparsed: str = field(default="leak", metadata={
        "help": "a claim whose judge answer could not be parsed: leak (counted as full leakage) or exclude (left out "
                "of its record's mean, the released code); counted either way", "choices": ("leak", "exclude")})
    max_unparsed_share: float = field(default=0.1, metadata={
        "help": "fail the run when more than this share of judged claims is unparsed (what was judged stays cached; "
                "1 never fails)"})
    unreadable: str = field(default="leak", metadata={
        "help": "claims judged against released text in a language the judge does not read (the shipped judges read "
                "English; textleak.leakage.readable): leak (counted as leaked, rating 1), exclude (left out of the mean) "
                "or judge (rated anyway, for a judge that reads it); counted in n_unreadable either way",
        "choices": ("leak", "exclude", "judge")})
    short_records: str = field(default="exclude", metadata={
        "help": "a record with no more than k claims leaves nothing to score once the adversary knows k: exclude "
                "(out of the mean, counted, warned above 5%) or reduce_k (the adversary knows all but one claim)",
        "choices": ("exclude", "reduce_k")})
    normalize: bool = field(default=True, metadata={
        "help": "normalise text before atomizing, linking and judging (HTML references unescaped, NFKC, overrides read "
                "as displayed, fillers as spaces, invisible characters removed, look-alike letters folded), so text "
                "that reads the same to a person reads the same here",
        "flag": "--no-normalize"})
    empty_originals: str = field(default="error", metadata={
        "help": "an empty original record: error, or skip (reported)", "choices": ("error", "skip")})
    lexical_variant: str = field(default="paper", metadata={
        "help": "lexical baseline: paper (1 - ROUGE-L F) or release (recall without the known sentences)",
        "choices": ("paper", "release")})
    bootstrap: int = field(default=1000, metadata={"help": "bootstrap resamples for the 95% intervals (0: none)"})
    linkage_ks: tuple[int, ...] = field(default=(1, 5, 10), metadata={"help": "k of the linkage@k rates"})
    batch_size: int | None = field(default=None, metadata={
        "help": "batch size of the judge's and the dense linker's model (their default when unset)"})
    device: str | None = field(default=None, metadata={"help": "device of the judge's and the dense linker's model (cpu, cuda, ...)"})
    max_record_chars: int = field(default=500_000, metadata={
        "help": "refuse, with one line naming it, any original or sanitized record longer than this many characters: "
                "the judge and the lexical baseline take time growing with a record's length (0: no limit)"})
    judge_batch_records: int = field(default=64, metadata={
        "help": "records judged per call; each finished call is cached, so an interrupted run resumes", "cli": False})
    use_cache: bool = field(default=True, metadata={
        "help": "read and write the claims and ratings caches", "flag": "--no-cache"})
    progress: bool | None = field(default=None, metadata={
        "help": "progress bars: True/False force them; None shows them when stderr is a terminal and CI is unset "
                "(TEXTLEAK_PROGRESS=1/0 overrides; see textleak.progress)", "cli": False})

    def __post_init__(self) -> None:
        for name in ("knowledge", "alignment", "missing", "unlinked", "unparsed", "empty_originals", "lexical_variant", "short_records",
                     "unreadable"):
            check_choice(LeakageConfig, name, getattr(self, name))
        for name, registry in (("judge", judges), ("atomizer", atomizers), ("linker", linkers)):
            value = getattr(self, name)
            if isinstance(value, str) and value not in registry:
                raise ValueError(f"unknown {name} {value!r}; available: {', '.join(registry.names())}")
        if isinstance(self.k, bool) or not isinstance(self.k, int) or self.k < 1:
            raise ValueError(f"k (known claims per record) must be an integer >= 1, got {self.k!r}")
        if isinstance(self.bootstrap, bool) or not isinstance(self.bootstrap, int) or self.bootstrap < 0:
            raise ValueError(f"bootstrap must be an integer >= 0 (0: no intervals), got {self.bootstrap!r}")
        for name in ("judge_options", "atomizer_options", "linker_options"):
            if not isinstance(getattr(self, name), dict):
                raise TypeError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")
        if isinstance(self.max_unparsed_share, bool) or not isinstance(self.max_unparsed_share, (int, float)) or not 0 <= self.max_unparsed_share <= 1:
            raise ValueError(f"max_unparsed_share must be a number in [0, 1], got {self.max_unparsed_share!r}")
        if isinstance(self.max_record_chars, bool) or not isinstance(self.max_record_chars, int) or self.max_record_chars < 0:
            raise ValueError(f"max_record_chars must be an integer >= 0 (0: no limit), got {self.max_record_chars!r}")
        self.linkage_ks = tuple(int(x) for x in self.linkage_ks)

    def replace(self, **changes: Any) -> "LeakageConfig":
        """A copy with some fields changed."""
        return replace(self, **changes)

    def settings(self) -> dict[str, Any]:
        """The plain settings (component objects by their name) for reports and fingerprints."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in ("progress",):
                continue
            out[f.name] = value if isinstance(value, (str, int, float, bool, type(None), dict, tuple, list)) else getattr(value, "name", repr(value))
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
