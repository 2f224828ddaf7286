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


def test_cycles_made_during_the_call_are_still_collected():
    gc.unfreeze()

    class Node:
        pass

    with old_objects_frozen():
        a, b = Node(), Node()
        a.other, b.other = b, a
        del a, b
        assert gc.collect() >= 2
