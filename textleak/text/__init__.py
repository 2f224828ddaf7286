"""Text pieces every stage shares: sentences, tokens, numbers, the longest common subsequence and
seeds. One implementation each; everything else in textleak calls these."""

from textleak.text.lcs import RougeL, lcs_length, rouge_l
from textleak.text.numbers import extract_numbers
from textleak.text.seeds import derive_seed, record_seed
from textleak.text.sentences import sentence_spans, split_sentences
from textleak.text.tokens import rouge_tokens, word_windows

__all__ = [
    "RougeL", "derive_seed", "extract_numbers", "lcs_length", "record_seed", "rouge_l", "rouge_tokens",
    "sentence_spans", "split_sentences", "word_windows",
]
