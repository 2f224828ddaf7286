"""The transformers backend: any causal LM from the Hub, a local folder, or a GGUF file.

Design choices, each pinned by a test:

- **Prompts.** A string is raw text (the tokenizer adds its BOS token; no chat template is applied,
  even on a chat model). A list of messages goes through the tokenizer's chat template with
  ``add_generation_prompt=True``; a tokenizer without one (e.g. a base model) gets a plain
  "System:/User:/Assistant:" rendering ending in ``"Assistant:"`` (:func:`plain_chat`).
- **Reproducible sampling.** Each sampled row (prompt, sample index) draws from its own
  ``torch.Generator`` seeded from the prompt's seed and the sample index, inside a logits processor;
  so a sample depends on its seed, never on which other prompts share its batch. Greedy decoding
  batches freely. No global RNG state is touched.
- **Banned phrases** are matched case-insensitively as substrings of the generated text (which covers
  every casing and spacing variant, and every tokenization of them). Before a token is accepted, the
  decoded text with that token is checked; a token that would complete a banned phrase is masked and
  another one is drawn. So a banned phrase cannot appear in the output (the controlled-generation
  code relies on this for zero leakage); a final check turns any miss into a failure, never a leak.
- **Stop strings** end a row's decoding once they appear in its decoded text; the output is cut
  before the first stop string.
- **Context length.** ``truncation="error"`` (default) raises :class:`PromptError` naming the prompt
  when prompt + ``max_new_tokens`` (or prompt + choice, when scoring) exceeds the context;
  ``truncation="left"`` drops the oldest prompt tokens (keeping BOS) with a warning.
- **Scoring** tokenizes prompt + choice jointly; the choice's tokens are those after the longest
  common token prefix of the prompt alone and the joint text (so a token straddling the boundary is
  scored as part of the choice). Rows are sorted so that rows sharing a token prefix (the choices of
  one prompt, or many prompts sharing an instruction and demos) are batched together; their common
  prefix is run once and its KV cache reused for the rest of every row.
- **Generation** reuses shared prefixes too: a batch of prompts sharing a prefix is laid out as
  cached prefix + padding + own tokens (exact; on sliding-window models only while the sequence fits
  the window), and the samples of one prompt can share its prefill (see ``_prefix_mode``).

The class is assembled from one module per job: :mod:`.model` (configuration, fingerprint, loading;
registers the ``hf`` backend), :mod:`.render` (prompts, encoding, context policy), :mod:`.generate`
(batch planning and the decoding loop) with :mod:`.decode` (token chooser, banned phrases, stop
strings), :mod:`.score` (choice log-probs) and :mod:`.kv` (prefix KV states shared by both).
"""

from textleak.llm.base import plain_chat, sample_seed
from textleak.llm.hf.model import TransformersLM

__all__ = ["TransformersLM", "plain_chat", "sample_seed"]
