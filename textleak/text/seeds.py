"""Seeds: every derived seed in textleak comes from here, through numpy's ``SeedSequence``.

A derived seed is a function of its parts only (a base seed, a record index, a step number, a tag),
never of global random state, batch composition or process count, so results do not change with
``num_proc`` or batch size.
"""

from __future__ import annotations

import hashlib

import numpy as np

#: Part of every cache key that depends on derived seeds; bump it when the derivation changes.
SEED_DERIVATION = "seedsequence-v1"


def _entropy(part: "int | str") -> int:
    if isinstance(part, (bool, np.bool_)):
        raise TypeError("a seed part is an int or a str, not a bool")
    if isinstance(part, (int, np.integer)):
        value = int(part)
        if value < 0:
            raise ValueError(f"seed parts must be non-negative, got {value}")
        return value
    if isinstance(part, str):  # strings (tags, texts) enter as a 256-bit digest
        return int.from_bytes(hashlib.sha256(part.encode("utf-8")).digest(), "big")
    raise TypeError(f"a seed part is an int or a str, got {type(part).__name__}")


def derive_seed(*parts: "int | str", bits: int = 63) -> int:
    """A ``bits``-bit seed (63 by default, 31 for APIs that take int32) from any ints and strings."""
    if not parts:
        raise ValueError("derive_seed needs at least one part")
    if not 1 <= bits <= 64:
        raise ValueError(f"bits must be in 1..64, got {bits}")
    words = np.random.SeedSequence([_entropy(p) for p in parts]).generate_state(2, np.uint32)
    return ((int(words[0]) << 32) | int(words[1])) >> (64 - bits)


def record_seed(base_seed: int, index: "int | None", text: str = "") -> int:
    """The seed of one record: from its index when known (``datasets.map(with_indices=True)``), else
    from its content."""
    if index is not None:
        return derive_seed(base_seed, "record", index)
    return derive_seed(base_seed, "content", text)


def rng(*parts: "int | str") -> np.random.Generator:
    """A numpy Generator on the ``SeedSequence`` of ``parts`` (for int parts, the same stream as
    ``np.random.default_rng([p0, p1, ...])``)."""
    return np.random.default_rng(np.random.SeedSequence([_entropy(p) for p in parts]))
