from textleak.metrics.space import launch

launch(__file__, example={
    # two paraphrases that name no one yet leak: both link to their original, and the judge finds most
    # claims there (semantic privacy about 0.37, lexical 0.67 with the default NLI judge)
    "predictions": ["A cook in her twenties who lives in Oslo and has asthma.",
                    "A retired pilot from Italy with a painful joint condition."],
    "references": ["She is 25 years old. She is a cook. She lives in Oslo. She has asthma.",
                   "He is 60 years old. He is a pilot. He lives in Rome. He has gout."],
    "options": {},
})
