"""Controlled generation of private synthetic text (seed 004) as a dataset-level sanitizer.

    from sanitizers import ControlledGenerator
    gen = ControlledGenerator(model="embedded", mode="icl", block_private_tokens=True)   # or mode="prefix"
    synthetic = gen.fit(train_ds, entities="annotations").generate(num_records=200, seed=0)

Like ``SyntheticData`` it has no ``datasets.map`` entry: it reads the whole private set and writes a
new one. The implementation lives in :mod:`textleak.controlled`.
"""

from textleak.controlled.generator import ControlledGenerator

__all__ = ["ControlledGenerator"]
