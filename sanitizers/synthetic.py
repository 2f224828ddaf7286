"""Synthesis as a dataset-level sanitizer (seed 000 appendix A.2; Yue et al. 2023).

    from sanitizers import SyntheticData
    synth = SyntheticData(model="gpt2", control_code="Question: {question} | Answer: {answer}",
                          epsilon=8.0, delta=None, epochs=3, lora_r=8)     # epsilon=None: no DP
    synthetic = synth.fit(train_ds).generate(num_records=1000, seed=0)     # a datasets.Dataset
    synth.privacy_report()

Unlike the per-record sanitizers it has no ``datasets.map`` entry: it learns from the whole set and
writes a new one. The implementation lives in :mod:`textleak.synthesis.synthesizer`.
"""

from textleak.synthesis.synthesizer import SyntheticData

__all__ = ["SyntheticData"]
