"""One registry pattern for every kind textleak can be extended with.

Each extensible kind (sanitizers, judges, linkers, atomizers, LLM backends, attacks) has one
:class:`Registry`. A new implementation is one file and one registration::

    from textleak.registry import judges

    @judges.register("nli")
    class NLIJudge(Judge):
        accepts_device = True      # capabilities are class attributes the pipeline and CLI read
        ...

Built-in implementations live in the kind's package (``textleak.judges``, ``textleak.linkers``,
``textleak.atomizers``, ``textleak.llm``, ``textleak.attacks``); the registry imports that package's
modules the first time it is asked for a name, so their decorators run and nothing needs a list kept
by hand. Implementations outside the engine (the top-level ``sanitizers`` package, third-party
packages) register through the entry-point group ``textleak.<kind>s`` (e.g. ``textleak.sanitizers``):
an entry point naming a module is imported (its decorators register), one naming a class is
registered under the entry point's name. The CLI's choices come from :meth:`Registry.names`.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil
from importlib import metadata
from typing import Any, Callable, Generic, Iterator, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")


class UnknownNameError(KeyError, ValueError):
    """A name no implementation is registered under (a KeyError for lookups, a ValueError for options)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Registry(Generic[T]):
    """Named implementations of one kind.

    ``package``: the built-ins' package, whose modules are imported on first lookup.
    ``entry_point_group``: third-party (and the ``sanitizers`` package's) registrations.
    ``base``: the kind's base class as ``"module:Class"`` (resolved on first use, so the registry
    module imports nothing): only its subclasses may register, and :meth:`build` passes its instances
    through.
    """

    def __init__(self, kind: str, *, package: str | None = None, entry_point_group: str | None = None,
                 base: str | None = None):
        self.kind = kind
        self.package = package
        self.entry_point_group = entry_point_group
        self._base_path = base
        self._items: dict[str, T] = {}
        self._aliases: dict[str, str] = {}
        self._loaded = False

    # ---- registering -----------------------------------------------------------------------------
    def register(self, name: str, *, aliases: tuple[str, ...] = ()) -> Callable[[T], T]:
        """Decorator: register a class (or factory) under ``name`` (and ``aliases``)."""

        def deco(obj: T) -> T:
            self.add(name, obj, aliases=aliases)
            return obj

        return deco

    def add(self, name: str, obj: T, *, aliases: tuple[str, ...] = ()) -> None:
        """Register ``obj`` under ``name``; a different object under a taken name is an error."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"a {self.kind} name is a non-empty string, got {name!r}")
        base = self.base
        if base is not None and inspect.isclass(obj) and not issubclass(obj, base):
            raise TypeError(f"{self.kind} {name!r} must subclass {base.__name__}")
        for key in (name, *aliases):
            current = self._items.get(key)
            if current is not None and current is not obj and not _same_class(current, obj):
                raise ValueError(f"{self.kind} {key!r} is already registered ({_qualname(current)})")
        self._items[name] = obj
        if inspect.isclass(obj) and getattr(obj, "name", None) in (None, "", "base", self.kind):
            try:
                obj.name = name  # type: ignore[attr-defined]
            except (AttributeError, TypeError):  # pragma: no cover - a frozen class
                pass
        for alias in aliases:
            self._aliases[alias] = name

    def remove(self, name: str) -> None:
        """Unregister ``name`` (tests register throwaway implementations and remove them)."""
        self._items.pop(name, None)
        for alias in [a for a, n in self._aliases.items() if n == name]:
            del self._aliases[alias]

    @property
    def base(self) -> type | None:
        if self._base_path is None:
            return None
        module, _, attr = self._base_path.partition(":")
        return getattr(importlib.import_module(module), attr)

    # ---- looking up ------------------------------------------------------------------------------
    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if self.package:
            pkg = importlib.import_module(self.package)
            for info in pkgutil.iter_modules(getattr(pkg, "__path__", [])):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{self.package}.{info.name}")
        if self.entry_point_group:
            for ep in metadata.entry_points(group=self.entry_point_group):
                try:
                    obj = ep.load()
                except Exception as err:  # noqa: BLE001 - a broken plug-in must not break the others
                    logger.warning("could not load %s plug-in %r (%s): %s", self.kind, ep.name, ep.value, err)
                    continue
                if inspect.ismodule(obj):
                    continue  # importing it ran its registrations
                if ep.name not in self._items:
                    self.add(ep.name, obj)

    def canonical(self, name: str) -> str:
        """The registered name for ``name`` or one of its aliases (case-insensitive)."""
        self._load()
        key = name.strip()
        for candidate in (key, key.lower()):
            if candidate in self._items:
                return candidate
            if candidate in self._aliases:
                return self._aliases[candidate]
        raise UnknownNameError(f"unknown {self.kind} {name!r}; available: {', '.join(self.names())}")

    def get(self, name: str) -> T:
        return self._items[self.canonical(name)]

    def create(self, name: str, **options: Any) -> Any:
        """An instance of ``name`` configured by ``options`` (unknown options are an error naming the valid ones)."""
        cls = self.get(name)
        check_options(cls, options, f"{self.kind} {name!r}")
        return cls(**options)

    def build(self, spec: Any, llm: Any = None, *, strict_llm: bool = True, **options: Any) -> Any:
        """An instance from a registered name and options; an instance of the kind passes through.

        ``llm`` goes to implementations that declare ``needs_llm`` (default ``"embedded"``). For the
        others it is an error (an LLM meant for one component is never silently ignored), unless
        ``strict_llm=False``: the pipeline offers its one LLM to every component that wants it.
        """
        base = self.base
        if base is not None and isinstance(spec, base):
            return spec
        if not isinstance(spec, str):
            raise TypeError(f"a {self.kind} is a registered name or a {base.__name__ if base else self.kind} object, got {type(spec).__name__}")
        name = self.canonical(spec)
        cls = self._items[name]
        if getattr(cls, "needs_llm", False):
            options.setdefault("llm", llm if llm is not None else "embedded")
        elif llm is not None and strict_llm:
            raise ValueError(f"the {name} {self.kind} takes no llm")
        return self.create(name, **options)

    def names(self) -> list[str]:
        self._load()
        return sorted(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        self._load()
        return iter(sorted(self._items.items()))

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self.canonical(name)
        except KeyError:
            return False
        return True

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._items)} registered)"


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _same_class(a: Any, b: Any) -> bool:
    """The same class imported twice (e.g. a module reloaded by a test) is not a conflict."""
    return inspect.isclass(a) and inspect.isclass(b) and _qualname(a) == _qualname(b)


def accepted_options(factory: Any) -> set[str] | None:
    """Keyword options ``factory`` accepts (None: any, it takes ``**kwargs``)."""
    target = factory.__init__ if inspect.isclass(factory) else factory
    params = inspect.signature(target).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return None
    return {n for n, p in params.items() if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def check_options(factory: Any, options: dict[str, Any], what: str) -> None:
    """Raise one clear error for options ``factory`` does not take."""
    accepted = accepted_options(factory)
    if accepted is None:
        return
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ValueError(f"{what} has no option(s) {unknown}; its options: {sorted(accepted)}")


#: Record-level and dataset-level sanitizers (the top-level ``sanitizers`` package registers through
#: the ``textleak.sanitizers`` entry point, so textleak never imports it by name).
sanitizers: Registry = Registry("sanitizer", entry_point_group="textleak.sanitizers", base="textleak.sanitize.base:Sanitizer")
#: Claim-support judges (``textleak.judges``).
judges: Registry = Registry("judge", package="textleak.judges", entry_point_group="textleak.judges",
                            base="textleak.judges.base:Judge")
#: Linkers of known claims to sanitized records (``textleak.linkers``).
linkers: Registry = Registry("linker", package="textleak.linkers", entry_point_group="textleak.linkers",
                             base="textleak.linkers.base:Linker")
#: Atomizers of records into claims (``textleak.atomizers``).
atomizers: Registry = Registry("atomizer", package="textleak.atomizers", entry_point_group="textleak.atomizers",
                               base="textleak.atomizers.base:Atomizer")
#: LLM backends, addressed by the scheme of an LLM spec (``hf:<id>``, ``openai:<model>@<url>``, ``embedded``).
llm_backends: Registry = Registry("LLM backend", package="textleak.llm", entry_point_group="textleak.llm_backends",
                                  base="textleak.llm.base:LanguageModel")
#: Reconstruction attacks on word-level DP (``textleak.attacks``).
attacks: Registry = Registry("attack", package="textleak.attacks", entry_point_group="textleak.attacks",
                             base="textleak.attacks.base:Attack")
