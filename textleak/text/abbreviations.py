"""Abbreviations read as a reader reads them: "PMH: CKD stage 3" states "chronic kidney disease", "I WFH" that the
user works from home.

Notes, letters and handovers abbreviate; claims usually write the words out, and neither word matching nor the
MiniLM encoders know that "CTA: right MCA occlusion" is "CT angiography shows a right middle cerebral artery
occlusion". :func:`expand_toward` rewrites a text toward the claims it is judged against, both ways:

- an abbreviation written in the text ("CKD", case as listed) becomes the expansion a claim writes ("chronic kidney
  disease"), when exactly one of its expansions is in the claims ("MS" is multiple sclerosis for one record and
  mitral stenosis for another; a record whose claims write both keeps "MS");
- an expansion written in the text becomes the abbreviation a claim writes ("chronic kidney disease" as "CKD").

The same rewrite reads clinical age-and-sex shorthand ("81F" as "an 81-year-old woman"), a bare age ("I'm 49," as
"49 years old") and a side's letter ("IOP R 26 mmHg" as "right") as the claims write them.

The lexicons are general usage (:data:`CLINICAL` and :data:`CLINICAL_MORE`: standard clinical abbreviation lists,
British and American spellings both; :data:`EVERYDAY`: work, education, money, places, family, software and
operations; :data:`MEDICINES`: brand and generic names of one drug). An
abbreviation matches only as a whole token in its listed case, so "AS" (aortic stenosis) is never "as", and only
toward a claim that writes the other form, so the rewrite can only bring a text closer to its claims (toward
leakage), like the rest of the reader's view (:func:`textleak.judges.values.reader_view`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

#: abbreviation (as written, case-sensitive) -> its expansions ("|" separates them)
CLINICAL: dict[str, str] = {
    # history and examination
    "PMH": "past medical history", "PMHx": "past medical history", "Hx": "history", "FHx": "family history", "FH": "family history",
    "SHx": "social history", "Dx": "diagnosis", "DDx": "differential diagnosis", "Tx": "treatment", "Sx": "symptoms",
    "Rx": "prescription", "HPI": "history of present illness", "ROS": "review of systems", "NKDA": "no known drug allergies",
    "NKA": "no known allergies", "SOB": "shortness of breath", "SOBOE": "shortness of breath on exertion",
    "DOE": "dyspnea on exertion|dyspnoea on exertion", "LOC": "loss of consciousness", "N/V": "nausea and vomiting",
    "GCS": "Glasgow Coma Scale", "BMI": "body mass index", "y/o": "year-old",
    # vital signs and examinations
    "BP": "blood pressure", "HR": "heart rate", "RR": "respiratory rate", "SpO2": "oxygen saturation",
    "SaO2": "oxygen saturation", "O2 sats": "oxygen saturation", "sats": "oxygen saturation", "O2": "oxygen",
    "ECG": "electrocardiogram|electrocardiography", "EKG": "electrocardiogram|electrocardiography",
    "EEG": "electroencephalogram|electroencephalography", "EMG": "electromyography", "echo": "echocardiogram|echocardiography",
    "TTE": "transthoracic echocardiogram|transthoracic echocardiography", "TOE": "transoesophageal echocardiogram",
    "TEE": "transesophageal echocardiogram", "CXR": "chest X-ray|chest radiograph", "AXR": "abdominal X-ray",
    "CT": "computed tomography", "CTA": "CT angiography|computed tomography angiography",
    "CTPA": "CT pulmonary angiography|CT pulmonary angiogram", "MRI": "magnetic resonance imaging",
    "MRA": "magnetic resonance angiography", "USS": "ultrasound scan|ultrasound", "LP": "lumbar puncture",
    "CSF": "cerebrospinal fluid", "ABG": "arterial blood gas", "PFTs": "pulmonary function tests", "PFT": "pulmonary function test",
    "FEV1": "forced expiratory volume in one second|forced expiratory volume", "FVC": "forced vital capacity",
    "EF": "ejection fraction", "LVEF": "left ventricular ejection fraction", "OGD": "upper endoscopy|gastroscopy",
    "EGD": "upper endoscopy|esophagogastroduodenoscopy",
    # laboratory
    "CBC": "complete blood count|full blood count", "FBC": "full blood count|complete blood count",
    "WBC": "white blood cell count|white cell count|white blood cells|leukocyte count",
    "WCC": "white cell count|white blood cell count", "RBC": "red blood cell count|red blood cells",
    "Hb": "hemoglobin|haemoglobin", "Hgb": "hemoglobin|haemoglobin", "Hct": "hematocrit|haematocrit",
    "Plt": "platelet count|platelets", "plt": "platelet count|platelets", "MCV": "mean corpuscular volume",
    "ESR": "erythrocyte sedimentation rate", "CRP": "C-reactive protein", "BUN": "blood urea nitrogen",
    "Cr": "creatinine", "eGFR": "estimated glomerular filtration rate|glomerular filtration rate",
    "GFR": "glomerular filtration rate", "LFTs": "liver function tests", "LFT": "liver function test",
    "TFTs": "thyroid function tests", "U&E": "urea and electrolytes", "U&Es": "urea and electrolytes",
    "ALT": "alanine aminotransferase", "AST": "aspartate aminotransferase", "ALP": "alkaline phosphatase",
    "GGT": "gamma-glutamyl transferase", "LDH": "lactate dehydrogenase", "TSH": "thyroid-stimulating hormone",
    "HbA1c": "hemoglobin A1c|haemoglobin A1c|glycated hemoglobin|glycated haemoglobin", "A1c": "glycated hemoglobin|glycated haemoglobin",
    "LDL": "low-density lipoprotein", "HDL": "high-density lipoprotein", "PSA": "prostate-specific antigen",
    "INR": "international normalized ratio|international normalised ratio", "PT": "prothrombin time",
    "aPTT": "activated partial thromboplastin time", "BNP": "brain natriuretic peptide", "UA": "urinalysis",
    "Na": "sodium", "Ca": "calcium", "Mg": "magnesium", "HCO3": "bicarbonate", "ANA": "antinuclear antibody|antinuclear antibodies",
    "hCG": "human chorionic gonadotropin", "bHCG": "beta-hCG|human chorionic gonadotropin",
    # conditions
    "MI": "myocardial infarction|heart attack", "STEMI": "ST-elevation myocardial infarction",
    "NSTEMI": "non-ST-elevation myocardial infarction", "ACS": "acute coronary syndrome", "CAD": "coronary artery disease",
    "IHD": "ischaemic heart disease|ischemic heart disease", "CHF": "congestive heart failure|heart failure",
    "HF": "heart failure", "AF": "atrial fibrillation", "AFib": "atrial fibrillation", "A-fib": "atrial fibrillation",
    "SVT": "supraventricular tachycardia", "VT": "ventricular tachycardia", "VF": "ventricular fibrillation",
    "HTN": "hypertension|high blood pressure", "DM": "diabetes mellitus|diabetes", "T2DM": "type 2 diabetes mellitus|type 2 diabetes",
    "T2D": "type 2 diabetes", "T1DM": "type 1 diabetes mellitus|type 1 diabetes", "T1D": "type 1 diabetes",
    "DKA": "diabetic ketoacidosis", "CKD": "chronic kidney disease", "AKI": "acute kidney injury", "ESRD": "end-stage renal disease",
    "COPD": "chronic obstructive pulmonary disease", "PE": "pulmonary embolism", "DVT": "deep vein thrombosis|deep venous thrombosis",
    "VTE": "venous thromboembolism", "UTI": "urinary tract infection", "URTI": "upper respiratory tract infection",
    "URI": "upper respiratory infection|upper respiratory tract infection", "LRTI": "lower respiratory tract infection",
    "CAP": "community-acquired pneumonia", "TB": "tuberculosis", "TIA": "transient ischemic attack|transient ischaemic attack",
    "CVA": "stroke|cerebrovascular accident", "SAH": "subarachnoid hemorrhage|subarachnoid haemorrhage",
    "ICH": "intracerebral hemorrhage|intracerebral haemorrhage", "TBI": "traumatic brain injury",
    "GERD": "gastroesophageal reflux disease|acid reflux", "GORD": "gastro-oesophageal reflux disease|acid reflux",
    "IBS": "irritable bowel syndrome", "IBD": "inflammatory bowel disease", "UC": "ulcerative colitis",
    "RA": "rheumatoid arthritis|room air", "SLE": "systemic lupus erythematosus|lupus", "OA": "osteoarthritis",
    "MS": "multiple sclerosis|mitral stenosis", "AS": "aortic stenosis", "MR": "mitral regurgitation",
    "ALS": "amyotrophic lateral sclerosis", "PD": "Parkinson's disease|Parkinson disease", "AD": "Alzheimer's disease|Alzheimer disease",
    "ADHD": "attention deficit hyperactivity disorder|attention-deficit/hyperactivity disorder",
    "ASD": "autism spectrum disorder|atrial septal defect", "PTSD": "post-traumatic stress disorder|posttraumatic stress disorder",
    "OCD": "obsessive-compulsive disorder", "MDD": "major depressive disorder",
    "GAD": "generalized anxiety disorder|generalised anxiety disorder", "BPD": "borderline personality disorder",
    "PCOS": "polycystic ovary syndrome|polycystic ovarian syndrome", "BPH": "benign prostatic hyperplasia",
    "OSA": "obstructive sleep apnea|obstructive sleep apnoea", "CF": "cystic fibrosis", "SCD": "sickle cell disease",
    "ITP": "immune thrombocytopenia|immune thrombocytopenic purpura", "TTP": "thrombotic thrombocytopenic purpura",
    "DIC": "disseminated intravascular coagulation", "AML": "acute myeloid leukemia|acute myeloid leukaemia",
    "CLL": "chronic lymphocytic leukemia|chronic lymphocytic leukaemia", "CML": "chronic myeloid leukemia|chronic myeloid leukaemia",
    "NHL": "non-Hodgkin lymphoma", "HCV": "hepatitis C", "HBV": "hepatitis B", "HPV": "human papillomavirus",
    "EBV": "Epstein-Barr virus", "CMV": "cytomegalovirus", "RSV": "respiratory syncytial virus",
    "MRSA": "methicillin-resistant Staphylococcus aureus", "STI": "sexually transmitted infection", "STD": "sexually transmitted disease",
    "GBS": "Guillain-Barre syndrome|Guillain-Barré syndrome|group B streptococcus", "LVH": "left ventricular hypertrophy",
    "SIADH": "syndrome of inappropriate antidiuretic hormone secretion", "PUD": "peptic ulcer disease",
    "NAFLD": "non-alcoholic fatty liver disease|nonalcoholic fatty liver disease", "HSV": "herpes simplex virus",
    # anatomy and procedures
    "MCA": "middle cerebral artery", "ACA": "anterior cerebral artery", "PCA": "posterior cerebral artery",
    "LAD": "left anterior descending", "RCA": "right coronary artery", "ICA": "internal carotid artery",
    "CABG": "coronary artery bypass graft|coronary artery bypass grafting|bypass surgery", "PCI": "percutaneous coronary intervention",
    "ACL": "anterior cruciate ligament", "MCL": "medial collateral ligament", "THR": "total hip replacement",
    "TKR": "total knee replacement", "ORIF": "open reduction and internal fixation", "CPR": "cardiopulmonary resuscitation",
    "DNR": "do not resuscitate", "DNACPR": "do not attempt cardiopulmonary resuscitation", "IVF": "in vitro fertilization|in vitro fertilisation",
    "LMP": "last menstrual period", "NG tube": "nasogastric tube", "PEG": "percutaneous endoscopic gastrostomy",
    "LSCS": "caesarean section|cesarean section|C-section", "C-section": "caesarean section|cesarean section",
    "ICU": "intensive care unit|intensive care", "ITU": "intensive care unit|intensive care", "ED": "emergency department",
    "A&E": "emergency department|accident and emergency", "ER": "emergency room", "GP": "general practitioner|family doctor",
    "PCP": "primary care physician|primary care provider", "OT": "occupational therapy|occupational therapist",
    "ENT": "ear, nose and throat|ear nose and throat",
    # medicines and routes
    "NSAID": "non-steroidal anti-inflammatory drug|nonsteroidal anti-inflammatory drug", "NSAIDs": "non-steroidal anti-inflammatory drugs|nonsteroidal anti-inflammatory drugs",
    "PPI": "proton pump inhibitor", "SSRI": "selective serotonin reuptake inhibitor", "OCP": "oral contraceptive pill",
    "HRT": "hormone replacement therapy", "IV": "intravenous|intravenously", "IM": "intramuscular|intramuscularly",
    "PO": "by mouth|orally", "BID": "twice daily|twice a day", "bd": "twice daily|twice a day", "TID": "three times daily|three times a day",
    "tds": "three times daily|three times a day", "QID": "four times daily|four times a day", "qds": "four times daily|four times a day",
    "OD": "once daily|once a day", "QD": "once daily|once a day", "PRN": "as needed", "prn": "as needed",
    "MVA": "motor vehicle accident|car accident", "RTA": "road traffic accident|car accident", "RTC": "road traffic collision|car accident",
}


#: everyday and technical abbreviations: work, education, money and documents, places, family, software and operations
EVERYDAY: dict[str, str] = {
    # work
    "HR": "human resources", "WFH": "working from home|works from home|work from home", "PTO": "paid time off",
    "OOO": "out of office", "CEO": "chief executive officer|chief executive", "CTO": "chief technology officer",
    "CFO": "chief financial officer", "COO": "chief operating officer", "VP": "vice president", "QA": "quality assurance",
    "SRE": "site reliability engineer|site reliability engineering", "PoC": "proof of concept", "POC": "proof of concept",
    "MVP": "minimum viable product", "CV": "curriculum vitae|résumé", "T&Cs": "terms and conditions",
    "ASAP": "as soon as possible", "ETA": "estimated time of arrival", "AKA": "also known as", "aka": "also known as",
    # education
    "BSc": "Bachelor of Science", "B.Sc.": "Bachelor of Science", "BA": "Bachelor of Arts", "MSc": "Master of Science",
    "M.Sc.": "Master of Science", "MA": "Master of Arts", "MBA": "Master of Business Administration", "PhD": "doctorate",
    "Ph.D.": "doctorate", "GPA": "grade point average", "CS": "computer science", "EE": "electrical engineering",
    "ML": "machine learning", "AI": "artificial intelligence", "NLP": "natural language processing",
    # money and documents
    "DOB": "date of birth", "SSN": "Social Security number", "NHS": "National Health Service", "IRS": "Internal Revenue Service",
    "APR": "annual percentage rate", "VAT": "value-added tax", "GST": "goods and services tax",
    "EMI": "equated monthly instalment|monthly instalment|monthly installment", "pcm": "per calendar month",
    # places
    "UK": "United Kingdom", "US": "United States", "USA": "United States of America|United States", "UAE": "United Arab Emirates",
    "EU": "European Union", "NYC": "New York City", "LA": "Los Angeles", "SF": "San Francisco", "NZ": "New Zealand",
    # family
    "MIL": "mother-in-law", "FIL": "father-in-law", "SIL": "sister-in-law", "BIL": "brother-in-law",
    # software and operations
    "k8s": "Kubernetes", "PR": "pull request", "MR": "merge request", "DB": "database", "db": "database", "repo": "repository",
    "env": "environment", "prod": "production", "config": "configuration", "auth": "authentication", "OS": "operating system",
    "VM": "virtual machine", "CI": "continuous integration", "CD": "continuous deployment|continuous delivery",
    "UI": "user interface", "UX": "user experience", "VPN": "virtual private network", "SSO": "single sign-on",
    "2FA": "two-factor authentication", "MFA": "multi-factor authentication", "OOM": "out of memory", "LB": "load balancer",
    "DM": "direct message",
}


#: more clinical abbreviations: eyes, routes, obstetrics, abdomen, function and drugs written short
CLINICAL_MORE: dict[str, str] = {
    "IOP": "intraocular pressure", "VA": "visual acuity", "SC": "subcutaneous|subcutaneously", "s/c": "subcutaneous|subcutaneously",
    "SL": "sublingual|sublingually", "NBM": "nil by mouth", "NPO": "nothing by mouth|nil by mouth", "NFR": "not for resuscitation",
    "DNAR": "do not attempt resuscitation", "GDM": "gestational diabetes mellitus|gestational diabetes",
    "PPH": "postpartum haemorrhage|postpartum hemorrhage", "SVD": "spontaneous vaginal delivery", "IUGR": "intrauterine growth restriction",
    "RUQ": "right upper quadrant", "LUQ": "left upper quadrant", "RLQ": "right lower quadrant", "LLQ": "left lower quadrant",
    "RIF": "right iliac fossa", "LIF": "left iliac fossa", "ROM": "range of motion", "ADLs": "activities of daily living",
    "ADL": "activities of daily living", "MMSE": "Mini-Mental State Examination", "MoCA": "Montreal Cognitive Assessment",
    "TUG": "Timed Up and Go", "BMD": "bone mineral density", "OGTT": "oral glucose tolerance test", "OTC": "over the counter",
    "LOS": "length of stay", "A1C": "glycated hemoglobin|glycated haemoglobin", "GTN": "glyceryl trinitrate|nitroglycerin",
    "MTX": "methotrexate", "HCQ": "hydroxychloroquine", "HCTZ": "hydrochlorothiazide", "ASA": "aspirin|acetylsalicylic acid",
    "APAP": "acetaminophen|paracetamol", "INH": "isoniazid", "ICS": "inhaled corticosteroid", "MDI": "metered-dose inhaler",
    "SABA": "short-acting beta agonist", "TMP-SMX": "trimethoprim-sulfamethoxazole|co-trimoxazole", "OCPs": "oral contraceptive pills",
    "CP": "chest pain|cerebral palsy", "LBP": "low back pain", "UTIs": "urinary tract infections",
}

#: one medicine, several names: brand -> generic, and the two national generic names (a brand is also read in lower case)
MEDICINES: dict[str, str] = {
    "Eliquis": "apixaban", "Xarelto": "rivaroxaban", "Pradaxa": "dabigatran", "Coumadin": "warfarin", "Plavix": "clopidogrel",
    "Brilinta": "ticagrelor", "Lipitor": "atorvastatin", "Crestor": "rosuvastatin", "Zocor": "simvastatin",
    "Norvasc": "amlodipine", "Zestril": "lisinopril", "Lasix": "furosemide|frusemide", "Glucophage": "metformin",
    "Januvia": "sitagliptin", "Jardiance": "empagliflozin", "Farxiga": "dapagliflozin", "Forxiga": "dapagliflozin",
    "Ozempic": "semaglutide", "Wegovy": "semaglutide", "Mounjaro": "tirzepatide", "Victoza": "liraglutide",
    "Lantus": "insulin glargine", "Humalog": "insulin lispro", "NovoRapid": "insulin aspart", "NovoLog": "insulin aspart",
    "Synthroid": "levothyroxine", "Eltroxin": "levothyroxine", "Zoloft": "sertraline", "Lustral": "sertraline",
    "Prozac": "fluoxetine", "Lexapro": "escitalopram", "Cipralex": "escitalopram", "Celexa": "citalopram", "Effexor": "venlafaxine",
    "Cymbalta": "duloxetine", "Wellbutrin": "bupropion", "Seroquel": "quetiapine", "Abilify": "aripiprazole",
    "Risperdal": "risperidone", "Zyprexa": "olanzapine", "Lamictal": "lamotrigine", "Keppra": "levetiracetam",
    "Depakote": "valproate|sodium valproate", "Epilim": "sodium valproate|valproate", "Tegretol": "carbamazepine",
    "Lyrica": "pregabalin", "Neurontin": "gabapentin", "Xanax": "alprazolam", "Valium": "diazepam", "Ativan": "lorazepam",
    "Ritalin": "methylphenidate", "Concerta": "methylphenidate", "Adderall": "amphetamine", "Zyrtec": "cetirizine",
    "Claritin": "loratadine", "Benadryl": "diphenhydramine", "Piriton": "chlorphenamine", "Sudafed": "pseudoephedrine",
    "Ventolin": "salbutamol|albuterol", "albuterol": "salbutamol", "Flonase": "fluticasone", "Symbicort": "budesonide and formoterol",
    "Spiriva": "tiotropium", "Tylenol": "acetaminophen|paracetamol", "acetaminophen": "paracetamol", "Panadol": "paracetamol",
    "Advil": "ibuprofen", "Nurofen": "ibuprofen", "Motrin": "ibuprofen", "Aleve": "naproxen", "Naprosyn": "naproxen",
    "Voltaren": "diclofenac", "Celebrex": "celecoxib", "Nexium": "esomeprazole", "Prilosec": "omeprazole", "Losec": "omeprazole",
    "Zantac": "ranitidine", "Imodium": "loperamide", "Augmentin": "co-amoxiclav|amoxicillin-clavulanate", "Keflex": "cephalexin|cefalexin",
    "cephalexin": "cefalexin", "Cipro": "ciprofloxacin", "Zithromax": "azithromycin", "Bactrim": "co-trimoxazole|trimethoprim-sulfamethoxazole",
    "Flagyl": "metronidazole", "Tamiflu": "oseltamivir", "Valtrex": "valacyclovir|valaciclovir", "valacyclovir": "valaciclovir",
    "Humira": "adalimumab", "Enbrel": "etanercept", "Remicade": "infliximab", "Keytruda": "pembrolizumab", "Herceptin": "trastuzumab",
    "Avastin": "bevacizumab", "Aimovig": "erenumab", "Imitrex": "sumatriptan", "Imigran": "sumatriptan", "Viagra": "sildenafil",
    "Cialis": "tadalafil", "Flomax": "tamsulosin", "Proscar": "finasteride", "EpiPen": "adrenaline|epinephrine",
    "epinephrine": "adrenaline", "Narcan": "naloxone", "OxyContin": "oxycodone", "Ultram": "tramadol", "Zofran": "ondansetron",
    "lignocaine": "lidocaine", "pethidine": "meperidine", "frusemide": "furosemide",
    "nitroglycerin": "glyceryl trinitrate", "Deltasone": "prednisone", "Medrol": "methylprednisolone", "Entresto": "sacubitril/valsartan",
}


def _medicines() -> dict[str, str]:
    """The medicines, each brand also in lower case ("eliquis"), as patients write it."""
    out = {}
    for name, generics in MEDICINES.items():
        if name == generics:
            continue
        out[name] = generics
        if name[0].isupper() and name.lower() not in MEDICINES:
            out[name.lower()] = generics
    return out


def _merged() -> dict[str, str]:
    """Both lexicons as one; an abbreviation in both keeps every meaning ("HR": heart rate or human resources)."""
    out = dict(CLINICAL)
    for extra in (CLINICAL_MORE, EVERYDAY, _medicines()):
        for a, e in extra.items():
            out[a] = f"{out[a]}|{e}" if a in out else e
    return out


_WORD = re.compile(r"\w+")


def _key(phrase: str) -> str:
    """An expansion as compared: lower case, a hyphen or a space between its words alike."""
    return re.sub(r"[\s-]+", " ", phrase.strip().lower())


class _Lexicon:
    """The lexicon compiled once: each abbreviation's and each expansion's pattern, and which abbreviations an
    expansion belongs to."""

    def __init__(self) -> None:
        self.expansions = {a: tuple(e.split("|")) for a, e in _merged().items()}
        self.by_expansion: dict[str, list[str]] = {}
        for a, es in self.expansions.items():
            for e in es:
                self.by_expansion.setdefault(_key(e), []).append(a)
        # one pattern per entry for the claims, without the leading look-behind (a pattern that opens with a literal
        # lets the regex engine skip ahead to it; :func:`_starts_token` checks the character before); expansions
        # case-sensitive, for the lower-cased claims
        self.token = {a: re.compile(_token_body((a,))) for a in self.expansions}
        self.phrase = {k: re.compile(_phrase_body((k,))) for k in self.by_expansion}
        # each entry under its first run of letters and digits, so that a text's words find their candidates
        self.abbreviations_at: dict[str, list[str]] = {}
        for a in self.expansions:
            self.abbreviations_at.setdefault(_WORD.search(a).group(0), []).append(a)
        self.expansions_at: dict[str, list[str]] = {}
        for k in self.by_expansion:
            self.expansions_at.setdefault(_WORD.search(k).group(0), []).append(k)


@lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    return _Lexicon()


# what may not stand right before a match, besides a word character: the text of a path, a host, a file name, an
# e-mail address or a URL query for an abbreviation, a hyphenated word for an expansion
_TOKEN_JOINERS, _PHRASE_JOINERS = "&/.@=?-", "-"
_BEFORE_TOKEN = rf"(?<![\w{re.escape(_TOKEN_JOINERS)}])"
_BEFORE_PHRASE = rf"(?<![\w{re.escape(_PHRASE_JOINERS)}])"


def _token_body(abbreviations: tuple[str, ...]) -> str:
    """The abbreviations, the longest first ("O2 sats" before "O2"), not followed by more of a word, a path, a host
    or a file name ("config.yaml", "CKD@example.com")."""
    return "(?:" + "|".join(map(re.escape, sorted(abbreviations, key=len, reverse=True))) + r")(?![\w&/@=-]|\.\w)"


def _phrase_body(keys: tuple[str, ...]) -> str:
    """The expansions (as :func:`_key` writes them), a hyphen or a space between their words alike, the longest first."""
    return "(?:" + "|".join(r"[\s-]+".join(map(re.escape, k.split())) for k in sorted(keys, key=len, reverse=True)) + r")(?![\w-])"


@lru_cache(maxsize=1024)
def _token_pattern(abbreviations: tuple[str, ...]) -> re.Pattern:
    """The abbreviations as whole tokens, in their case: not inside a word, a path, a host, a file name, an e-mail
    address or a URL query ("prod.example.com", "config.yaml", ".env", "?q=CKD")."""
    return re.compile(_BEFORE_TOKEN + _token_body(abbreviations))


@lru_cache(maxsize=1024)
def _phrase_pattern(keys: tuple[str, ...]) -> re.Pattern:
    """The expansions in any case, as whole words."""
    return re.compile(_BEFORE_PHRASE + _phrase_body(keys), re.IGNORECASE)


def _starts_token(text: str, at: int, also: str) -> bool:
    """No word character (nor one of ``also``) right before ``at``: the look-behind the per-entry patterns leave out."""
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_" or text[at - 1] in also)


def _spans(pattern: re.Pattern, text: str, also: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text) if _starts_token(text, m.start(), also)]


# a claim's age and sex ("an 81-year-old woman"), and the clinical shorthand for them ("81F", "45 M", "45yo M", "45 y/o male")
_CLAIM_AGE = re.compile(r"\b(\d{1,3})-year-old\s+(man|woman|male|female|boy|girl|gentleman|lady)\b", re.IGNORECASE)
_SHORT_AGE = re.compile(r"(?<![\w/.-])(\d{1,3})\s?(?:(?:yo|y/o|y\.o\.|yrs?|years?)\s?)?(M|F|male|female)(?![\w-])")
# a claim's age in years ("49 years old", "a 49-year-old"), and a bare age as chat and notes write it ("I'm 49,", "aged 49",
# "49 yo"): only before punctuation or a word that ends the phrase, so "I'm 49 minutes late" and "I'm 5 foot" stay
_CLAIM_YEARS = re.compile(r"\b(\d{1,3})(?:\s+years?\s+old|-years?-old)\b", re.IGNORECASE)
_BARE_AGE = re.compile(r"(?:\b(?:I'm|I\s+am|Im|aged|age)\s+(\d{1,3})(?=\s*(?:[,.;:!?)]|$|\s+(?:and|now|this|next|last|with|but)\b))"
                       r"|(?<![\w./-])(\d{1,3})\s?(?:yo|y/o|y\.o\.|yrs|yr)(?![\w/]))", re.IGNORECASE)
# a side written as its letter in notes ("IOP R 26 mmHg", "ABPI L 0.94", "L anterior epistaxis"); not after a number ("2 L")
_SIDE = re.compile(r"(?<![\w.&/-])(?<!\d )[RL](?![\w&/-]|\.\w|\.?\s+[A-Z][a-z])")  # not an initial ("John R Smith", "Dr L Jones")
_SEX = {"man": "m", "male": "m", "boy": "m", "gentleman": "m", "woman": "f", "female": "f", "girl": "f", "lady": "f"}


@dataclass(frozen=True)
class _Toward:
    """What the claims of a record ask of its text: abbreviation -> the expansion a claim writes, expansion -> the
    abbreviation a claim writes, (age, sex) -> how a claim writes them."""

    forward: dict[str, str]
    backward: dict[str, str]
    ages: dict[tuple[str, str], str]
    sides: dict[str, str]  # "R" -> "right", "L" -> "left", where a claim writes the side
    kept: tuple[str, ...]  # the expansions the claims write (as _key writes them): never rewritten inside the text
    years: frozenset[str]  # the ages the claims write in years ("49")


def _outermost(found: dict[str, list[tuple[int, int]]]) -> list[str]:
    """The entries written somewhere other than inside a longer entry's match ("heart failure" inside "congestive
    heart failure" is not written by itself; "O2" inside "O2 sats" neither)."""
    spans = [span for ss in found.values() for span in ss]
    return [k for k, ss in found.items()
            if any(not any(a <= s and e <= b and (a, b) != (s, e) for a, b in spans) for s, e in ss)]


@lru_cache(maxsize=4096)
def _toward(joined: str) -> _Toward:
    """Read the claims once (a record's text is read against them more than once). An entry is tried only where a
    claim writes its first word, so the lexicon's size costs a dictionary lookup per distinct word of the claims."""
    lex = _lexicon()
    words = set(_WORD.findall(joined))
    folded = {w.lower() for w in words}
    found_abbreviations = {a: _spans(lex.token[a], joined, _TOKEN_JOINERS) for w in words for a in lex.abbreviations_at.get(w, ())}
    flat = _key(joined)
    lower = joined.lower()
    if len(lower) != len(joined):  # "İ" lowers to two characters: match in the text's own case
        lower, phrases = joined, {k: re.compile(p.pattern, re.IGNORECASE) for k, p in lex.phrase.items()}
    else:
        phrases = lex.phrase
    found_expansions = {k: _spans(phrases[k], lower, _PHRASE_JOINERS) for w in folded for k in lex.expansions_at.get(w, ()) if k in flat}
    written_abbreviations = set(_outermost({a: spans for a, spans in found_abbreviations.items() if spans}))
    outer = _outermost({k: spans for k, spans in found_expansions.items() if spans})
    written_expansions = {k: joined[slice(*found_expansions[k][0])] for k in outer}
    forward: dict[str, str] = {}
    for key, written in written_expansions.items():
        for a in lex.by_expansion[key]:
            if a not in written_abbreviations and len({_key(e) for e in lex.expansions[a]} & written_expansions.keys()) == 1:
                forward[a] = written
    backward: dict[str, str] = {}
    for a in written_abbreviations:
        if not any(_key(e) in written_expansions for e in lex.expansions[a]):
            for e in lex.expansions[a]:
                backward.setdefault(_key(e), a)
    ages = {(m.group(1), _SEX[m.group(2).lower()]): m.group(0) for m in _CLAIM_AGE.finditer(joined)}
    sides = {letter: side for letter, side in (("R", "right"), ("L", "left")) if side in folded}
    years = frozenset(m.group(1) for m in _CLAIM_YEARS.finditer(joined))
    return _Toward(forward, backward, ages, sides, tuple(sorted(written_expansions)), years)


def expand_toward(text: str, claims: Sequence[str]) -> str:
    """``text`` with each listed abbreviation written as the expansion a claim writes, and each listed expansion
    written as the abbreviation a claim writes (see the module docstring), clinical age-and-sex shorthand ("81F")
    as the claims write that age and sex ("81-year-old woman"), and a side's letter ("IOP R 26") as the side a claim
    writes ("right"); unchanged when no claim writes either."""
    toward = _toward("\n".join(claims))
    if toward.ages:
        text = _SHORT_AGE.sub(lambda m: toward.ages.get((m.group(1), m.group(2)[0].lower()), m.group(0)), text)
    if toward.sides:
        text = _SIDE.sub(lambda m: toward.sides.get(m.group(0), m.group(0)), text)
    if toward.years:
        text = _BARE_AGE.sub(_in_years(toward.years), text)
    if not toward.forward and not toward.backward:
        return text
    words = set(_WORD.findall(text))  # only entries whose first word the text writes are looked for
    forward = tuple(sorted(a for a in toward.forward if _WORD.search(a).group(0) in words))
    if forward:
        text = _token_pattern(forward).sub(lambda m: m.group(0) if _numeral(text, m) else toward.forward[m.group(0)], text)
    lowered = {w.lower() for w in words}
    backward = tuple(sorted(k for k in toward.backward if _WORD.search(k).group(0) in lowered))
    if backward:
        # an expansion inside a longer one the claims write stays ("congestive heart failure" is not "congestive HF"
        # for a record whose claims write both "HF" and "congestive heart failure")
        kept = [m.span() for m in _phrase_pattern(toward.kept).finditer(text)] if toward.kept else []
        text = _phrase_pattern(backward).sub(
            lambda m: m.group(0) if any(a <= m.start() and m.end() <= b and (a, b) != m.span() for a, b in kept)
            else toward.backward[_key(m.group(0))], text)
    return text


def _in_years(years: frozenset[str]) -> Callable[[re.Match], str]:
    """The replacement for :data:`_BARE_AGE`: "I'm 49" as "I'm 49 years old", "49 yo" as "49 years old", for the claims' ages."""
    def replace(m: re.Match) -> str:
        if m.group(1) in years:
            return f"{m.group(0)} years old"
        if m.group(2) in years:
            return f"{m.group(2)} years old"
        return m.group(0)
    return replace


_NUMERAL_BEFORE = re.compile(r"(?:\b[A-Z][a-z]+|\b(?i:stage|grade|type|class|phase|part|chapter|level|category))\s+$")


def _numeral(text: str, m: re.Match) -> bool:
    """A Roman numeral, not an abbreviation: "IV" after a name or a stage word ("Henry IV", "stage IV")."""
    return m.group(0) in ("IV", "II", "III", "VI") and _NUMERAL_BEFORE.search(text, max(0, m.start() - 20), m.start()) is not None
