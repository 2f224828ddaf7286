"""textleak.heap: the judge's calls hide older objects from the cyclic collector, and give them back."""

import gc

import pytest

from textleak.heap import old_objects_frozen
from textleak.judges.base import ClaimRating, Judge


class _Probe(Judge):
    name = "probe"

    def __init__(self):
        self.frozen_during: list[int] = []

    def _rate(self, claims, documents, seeds):
        self.frozen_during.append(gc.get_freeze_count())
        return [[ClaimRating(1, 0.0, "ok", {}) for _ in cs] for cs in claims]

    def describe(self):
        return {"name": self.name}


def test_a_judge_call_freezes_what_was_alive_and_unfreezes_after():
    gc.unfreeze()
    alive = [object() for _ in range(10)]  # noqa: F841 - tracked objects that exist before the call
    judge = _Probe()
    judge.rate([["a claim"]], ["a document"])
    assert judge.frozen_during[0] > 0
    assert gc.get_freeze_count() == 0


def test_unfrozen_after_an_exception_and_nothing_lost():
    gc.unfreeze()
    with pytest.raises(RuntimeError):
        with old_objects_frozen():
            assert gc.get_freeze_count() > 0
            raise RuntimeError("boom")
    assert gc.get_freeze_count() == 0


def test_a_caller_s_own_freeze_is_left_alone():
    gc.unfreeze()
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with old_objects_frozen():
            pass
        assert gc.get_freeze_count() == before  # not unfrozen by us
    finally:
        gc.unfreeze()


def test_old_cycles_wait_for_the_end_of_the_call_and_new_ones_do_not():
    """Inside the call the collector skips what was alive before it (a full collection frees none of it) and still
    collects what the call made; after the call the old garbage is collected too (it was given back)."""
    import weakref

    gc.unfreeze()

    class Node:
        pass

    def cycle():
        a, b = Node(), Node()
        a.other, b.other = b, a
        return weakref.ref(a)

    gc.disable()  # only the explicit collections below run: none can take the old cycle before the call
    try:
        old = cycle()  # garbage already, but not yet collected
        with old_objects_frozen():
            new = cycle()
            gc.collect()
            assert new() is None  # made during the call: collected
            assert old() is not None  # alive before it: frozen, skipped
        gc.collect()
        assert old() is None
    finally:
        gc.enable()
