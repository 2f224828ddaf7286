"""Reconstruction attacks on word-level DP sanitization (Tong et al., seed 001), registered by name
in ``textleak.registry.attacks``:

====================  =====================================================================
context_free_bound    oracle prior x closed-form Pr(y|x'), no smoothing (Def. 1)
contextual_k_bound    oracle prior, top-K rerank by a pair detector (Def. 2)
context_free_bayes    shadow prior with alpha^-1 smoothing (Eq. 10)
contextual_bayes      shadow prior, top-K rerank by a detector fine-tuned on shadow sanitizations
embedding_inversion   nearest candidate in embedding space (= y itself)
inversion_bert        token classifier on sanitized context (or Tong's token-only majority vote)
mask_inference        masked-LM top-1 at the target position
====================  =====================================================================
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
