"""The NLI judge reads a first-person sentence in the claim's voice (NLIJudge(voice=True))."""

from textleak.judges.nli import NLIJudge, in_claim_voice


def test_first_person_sentence_in_the_claims_voice():
    assert in_claim_voice("The writer has attached their resume.", "I have attached my resume.") == "the writer has attached their resume."
    assert in_claim_voice("The user's EMI is 11,200.", "My EMI is 11,200.") == "the user's EMI is 11,200."


def test_left_alone_without_a_subject_or_a_first_person():
    assert in_claim_voice("The patient has a fever.", "I have a fever.") == "I have a fever."  # the patient is not the writer
    assert in_claim_voice("The user lives in Leeds.", "She lives in Leeds.") == "She lives in Leeds."


def test_a_fact_in_the_first_person_is_stated_not_missed():
    claim, doc = "The writer has attached their resume.", "Dear Ms Lee, I have attached my resume to this e-mail. Best, Ana"
    voiced = NLIJudge().rate([[claim]], [doc])[0][0]
    assert voiced.rating == 1 and "verbatim" in voiced.detail["reason"]
    plain = NLIJudge(voice=False).rate([[claim]], [doc])[0][0]
    assert "verbatim" not in str(plain.detail.get("reason"))  # without the voice the shortcut does not see it
    assert NLIJudge().describe()["voice"] is True and NLIJudge(voice=False).describe()["calibration"] == "not measured for these settings"
