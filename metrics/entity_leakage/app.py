from textleak.metrics.space import launch

launch(__file__, example={
    "predictions": ["Ms Ann Lee paid $87,500 in Springfield.", "The applicant lives in Riverton."],
    "references": ["Ann Lee paid the sum in Oslo.", "Bob Stone lives in Oslo."],
    "options": {"private_entities": [["Ann Lee", "$87,500", "Oslo"], ["Bob Stone", "Oslo"]]},
})
