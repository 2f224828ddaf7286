"""A seeded generator of synthetic MedQA-style records (vignette, question, four options, answer).

Every record is invented from templates: a scenario (complaint, findings, question, options) and
random demographics, history, medications, social history, vital signs and laboratory values, drawn
from ``numpy.random.default_rng((seed, index))`` so record i is the same whatever n is. It feeds the
bundled demo set (``textleak/data/demo_medqa.jsonl``, 48 records) and the end-to-end benchmark (any
number of records). No real patient or exam item is in it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from textleak.text.seeds import rng

DEMO_PATH = Path(__file__).resolve().parent / "demo_medqa.jsonl"

_SCENARIOS: list[dict[str, Any]] = [
    {"complaint": "crushing substernal chest pain radiating to the left arm", "onset": "{h} hours",
     "findings": ["diaphoresis", "an S4 gallop"], "test": "An ECG shows ST-segment elevations in leads II, III, and aVF.",
     "question": "Which of the following is the most appropriate next step in management?",
     "options": ["Percutaneous coronary intervention", "Oral metoprolol only", "Exercise stress testing", "CT angiography of the abdomen"], "answer": 0},
    {"complaint": "fever, productive cough, and pleuritic chest pain", "onset": "{d} days",
     "findings": ["dullness to percussion over the right lower lobe", "bronchial breath sounds at the right base"],
     "test": "A chest x-ray shows a right lower lobe consolidation.",
     "question": "Which of the following is the most likely causal organism?",
     "options": ["Mycoplasma pneumoniae", "Streptococcus pneumoniae", "Pneumocystis jirovecii", "Legionella pneumophila"], "answer": 1},
    {"complaint": "polyuria, polydipsia, and a {w}-kg weight loss", "onset": "{wk} weeks",
     "findings": ["dry mucous membranes", "a fruity odor on the breath"], "test": "A urine dipstick is positive for glucose and ketones.",
     "question": "Which of the following is the most likely underlying mechanism?",
     "options": ["Peripheral insulin resistance", "Autoimmune destruction of beta cells", "Excess cortisol production", "Impaired renal glucose reabsorption"], "answer": 1},
    {"complaint": "fatigue, cold intolerance, and constipation", "onset": "{mo} months",
     "findings": ["dry, coarse skin", "delayed relaxation of the ankle reflexes"], "test": "Serum thyroid-stimulating hormone is elevated.",
     "question": "Which of the following is the most appropriate pharmacotherapy?",
     "options": ["Propylthiouracil", "Levothyroxine", "Radioactive iodine", "Hydrocortisone"], "answer": 1},
    {"complaint": "sudden weakness of the right arm and slurred speech", "onset": "{h} hours",
     "findings": ["right-sided facial droop", "decreased strength in the right upper extremity"],
     "test": "A noncontrast CT scan of the head shows no hemorrhage.",
     "question": "Which of the following is the most appropriate next step in management?",
     "options": ["Intravenous alteplase", "Oral warfarin", "Lumbar puncture", "Carotid endarterectomy within 1 hour"], "answer": 0},
    {"complaint": "colicky right flank pain radiating to the groin", "onset": "{h} hours",
     "findings": ["costovertebral angle tenderness on the right", "no abdominal guarding"], "test": "Urinalysis shows microscopic hematuria.",
     "question": "Which of the following is the most likely composition of the stone?",
     "options": ["Uric acid", "Calcium oxalate", "Cystine", "Struvite"], "answer": 1},
    {"complaint": "episodes of palpitations and lightheadedness", "onset": "{wk} weeks",
     "findings": ["an irregularly irregular pulse", "no murmurs"], "test": "An ECG shows absent P waves and an irregular ventricular rhythm.",
     "question": "Which of the following is the most appropriate long-term therapy to prevent complications?",
     "options": ["Aspirin and clopidogrel", "Apixaban", "Digoxin only", "No therapy"], "answer": 1},
    {"complaint": "right lower quadrant abdominal pain, nausea, and anorexia", "onset": "{h} hours",
     "findings": ["rebound tenderness at McBurney's point", "a positive psoas sign"], "test": "Ultrasound shows a noncompressible tubular structure in the right lower quadrant.",
     "question": "Which of the following is the most appropriate next step in management?",
     "options": ["Appendectomy", "Colonoscopy", "Oral antibiotics and discharge", "Barium enema"], "answer": 0},
    {"complaint": "a painful, swollen left calf", "onset": "{d} days",
     "findings": ["a 3-cm difference in calf circumference", "tenderness along the deep veins"], "test": "Compression ultrasonography shows a noncompressible popliteal vein.",
     "question": "Which of the following is the most appropriate initial treatment?",
     "options": ["Low-molecular-weight heparin", "Aspirin", "Compression stockings only", "Inferior vena cava filter"], "answer": 0},
    {"complaint": "joint pain and morning stiffness in both hands lasting over an hour", "onset": "{mo} months",
     "findings": ["swelling of the metacarpophalangeal joints", "ulnar deviation of the fingers"], "test": "Serum anti-cyclic citrullinated peptide antibodies are positive.",
     "question": "Which of the following is the most appropriate initial disease-modifying therapy?",
     "options": ["Methotrexate", "Allopurinol", "Colchicine", "Long-term prednisone alone"], "answer": 0},
    {"complaint": "burning epigastric pain that improves with meals", "onset": "{mo} months",
     "findings": ["mild epigastric tenderness", "no hepatosplenomegaly"], "test": "A urea breath test is positive.",
     "question": "Which of the following is the most appropriate treatment?",
     "options": ["Clarithromycin, amoxicillin, and omeprazole", "Ranitidine alone", "Surgical vagotomy", "Misoprostol alone"], "answer": 0},
    {"complaint": "a severe headache, neck stiffness, and photophobia", "onset": "{h} hours",
     "findings": ["nuchal rigidity", "a positive Kernig sign"], "test": "Cerebrospinal fluid analysis shows an elevated neutrophil count and low glucose.",
     "question": "Which of the following is the most appropriate empiric therapy?",
     "options": ["Ceftriaxone and vancomycin", "Acyclovir alone", "Oral amoxicillin", "Fluconazole"], "answer": 0},
]
_HISTORY = ["hypertension", "type 2 diabetes mellitus", "hyperlipidemia", "asthma", "gout", "hypothyroidism",
            "chronic kidney disease", "major depressive disorder", "osteoarthritis of the knees", "migraine",
            "gastroesophageal reflux disease", "atrial fibrillation", "psoriasis", "obstructive sleep apnea"]
_MEDICATIONS = ["lisinopril", "metformin", "atorvastatin", "albuterol", "allopurinol", "levothyroxine", "sertraline",
                "omeprazole", "amlodipine", "hydrochlorothiazide", "ibuprofen", "insulin glargine", "metoprolol", "losartan"]
_OCCUPATIONS = ["teacher", "construction worker", "accountant", "nurse", "truck driver", "software developer", "farmer",
                "chef", "retired postal worker", "graduate student", "electrician", "pharmacist", "bus driver", "librarian"]
_SETTINGS = ["comes to the emergency department", "comes to the physician", "is brought to the emergency department by her partner",
             "presents to the clinic", "comes to the urgent care center"]
_ORIGINS = ["", " who recently moved from Ohio", " who returned from a trip to Peru 2 weeks ago", " who lives alone",
            " who works night shifts", " who emigrated from Vietnam 10 years ago"]


def _rng(seed: int, index: int) -> np.random.Generator:
    return rng(seed, index)  # the SeedSequence stream of default_rng([seed, index])


def vignette_record(index: int, seed: int = 0) -> dict[str, Any]:
    """Synthetic record ``index``: MedQA's fields (``question`` holds vignette + final question)."""
    rng = _rng(seed, index)
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    sc = _SCENARIOS[int(rng.integers(len(_SCENARIOS)))]
    female = bool(rng.integers(2))
    age = int(rng.integers(19, 88))
    noun = "woman" if female else "man"
    she, her = ("She", "her") if female else ("He", "his")
    setting = pick(_SETTINGS)
    if not female:
        setting = setting.replace("by her partner", "by his partner")
    onset = sc["onset"].format(h=int(rng.integers(1, 12)), d=int(rng.integers(2, 9)), wk=int(rng.integers(2, 10)),
                               mo=int(rng.integers(2, 13)))
    complaint = sc["complaint"].format(w=int(rng.integers(3, 11)))
    history = [_HISTORY[i] for i in rng.choice(len(_HISTORY), size=int(rng.integers(1, 4)), replace=False)]
    meds = [_MEDICATIONS[i] for i in rng.choice(len(_MEDICATIONS), size=int(rng.integers(1, 4)), replace=False)]
    packs, years = int(rng.integers(0, 3)), int(rng.integers(5, 40))
    drinks = int(rng.integers(0, 15))
    temp_c = round(float(rng.uniform(36.4, 39.6)), 1)
    temp_f = round(temp_c * 9 / 5 + 32, 1)
    pulse, resp = int(rng.integers(58, 128)), int(rng.integers(12, 28))
    sys_bp, dia_bp = int(rng.integers(96, 182)), int(rng.integers(56, 104))
    spo2 = int(rng.integers(88, 100))
    hb = round(float(rng.uniform(9.5, 16.8)), 1)
    wbc = int(rng.integers(40, 190)) * 100
    plt = int(rng.integers(120, 450)) * 1000
    na, k = int(rng.integers(128, 147)), round(float(rng.uniform(3.1, 5.6)), 1)
    glucose, creat = int(rng.integers(70, 420)), round(float(rng.uniform(0.6, 2.4)), 1)

    def series(xs: list[str]) -> str:
        return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + (", and " if len(xs) > 2 else " and ") + xs[-1]

    smoking = (f"{she} has smoked {packs} pack{'s' if packs > 1 else ''} of cigarettes daily for {years} years."
               if packs else f"{she} has never smoked.")
    alcohol = f"{she} drinks {drinks} alcoholic beverages per week." if drinks else f"{she} does not drink alcohol."
    lines = [
        f"A {age}-year-old {noun}{pick(_ORIGINS)} {setting} because of {complaint} for {onset}.",
        f"{she} has a history of {series(history)}.",
        f"Current medications include {series(meds)}.",
        f"{she} works as a {pick(_OCCUPATIONS)}.",
        smoking,
        alcohol,
        f"{her.capitalize()} temperature is {temp_c}°C ({temp_f}°F), pulse is {pulse}/min, respirations are {resp}/min, "
        f"and blood pressure is {sys_bp}/{dia_bp} mm Hg.",
        f"Pulse oximetry on room air shows an oxygen saturation of {spo2}%.",
        f"Physical examination shows {series(list(sc['findings']))}.",
        sc["test"],
        "Laboratory studies show:",
        f"Hemoglobin {hb} g/dL\nLeukocyte count {wbc:,}/mm3\nPlatelet count {plt:,}/mm3\nSerum\nNa+ {na} mEq/L\n"
        f"K+ {k} mEq/L\nGlucose {glucose} mg/dL\nCreatinine {creat} mg/dL",
    ]
    vignette = " ".join(lines[:11]) + "\n" + lines[11]
    order = rng.permutation(4)
    options = {letter: sc["options"][int(j)] for letter, j in zip("ABCD", order)}
    answer_idx = "ABCD"[int(np.where(order == sc["answer"])[0][0])]
    return {"id": f"synth-{seed}-{index:05d}", "question": f"{vignette}\n{sc['question']}", "options": options,
            "answer_idx": answer_idx, "answer": options[answer_idx], "meta_info": "synthetic (textleak.data.vignettes)"}


def generate_vignettes(n: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    """``n`` synthetic MedQA-style records; record i depends only on (seed, i)."""
    for i in range(n):
        yield vignette_record(i, seed)


def write_jsonl(path: str | Path, n: int, seed: int = 0) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for rec in generate_vignettes(n, seed):
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


if __name__ == "__main__":  # regenerate the bundled demo set
    write_jsonl(DEMO_PATH, 48, seed=2024)
