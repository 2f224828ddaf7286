from textleak.metrics.space import launch

launch(__file__, example={
    "predictions": ["A woman in her twenties works in a restaurant kitchen.", ""],
    "references": ["She is 25 years old. She is a cook. She lives in Oslo. She has asthma.",
                   "He is 60 years old. He is a pilot. He lives in Rome. He has gout."],
    "options": {},
})
