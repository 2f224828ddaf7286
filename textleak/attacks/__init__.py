"""Reconstruction attacks on word-level DP sanitization (Tong et al., seed 001), registered by name
in ``textleak.registry.attacks``:

====================  =====================================================================
context_free_bound    oracle prior x closed-form Pr(y|x'), no smoothing (Def. 1)
contextual_k_bound    oracle prior, top-K rerank by a language model's view of the context (Def. 2)
context_free_bayes    shadow prior with alpha^-1 smoothing (Eq. 10)
contextual_bayes      shadow prior, top-K rerank by Gemma 3 270M (weights chosen on shadow targets),
                      or by the paper's pair detector (``scorer="detector"``)
embedding_inversion   nearest candidate in embedding space (= y itself)
inversion_bert        head on a frozen encoder over the sanitized context (or Tong's token-only vote)
mask_inference        a language model's next word at the target (or a masked LM's top-1)
====================  =====================================================================

The first three and embedding inversion take seconds and are the defaults of ``textleak attack`` and
``reconstruction_asr``; the others run a model (minutes on a CPU), are opt-in, and log an estimate
before they start.
"""

from textleak.attacks.base import Attack, AttackData, bayes_rank, prior_counts
from textleak.attacks.bayes import ContextFreeBayes, ContextFreeBound
from textleak.attacks.contextual import ContextualBayes, ContextualKBound, PairDetector
from textleak.attacks.baselines import EmbeddingInversion, InversionBert, MaskInference
from textleak.attacks.asr import private_shadow_split, run_attacks, select_targets

ATTACKS = ("context_free_bayes", "contextual_bayes", "embedding_inversion", "inversion_bert", "mask_inference")
BOUNDS = ("context_free_bound", "contextual_k_bound")

__all__ = ["Attack", "AttackData", "bayes_rank", "prior_counts", "ContextFreeBayes", "ContextFreeBound",
           "ContextualBayes", "ContextualKBound", "PairDetector", "EmbeddingInversion", "InversionBert",
           "MaskInference", "private_shadow_split", "run_attacks", "select_targets", "ATTACKS", "BOUNDS"]
