from textleak.metrics.space import launch

launch(__file__, example={
    "predictions": ["it 's a charming and often affecting trip ."],
    "references": ["it 's a charming and often affecting journey ."],
    "options": {"mechanism": "custext+", "epsilon": 3.0, "shadow": ["a charming journey , often affecting ."],
                "attacks": ["context_free_bayes", "embedding_inversion"], "bounds": ["context_free"]},
})
