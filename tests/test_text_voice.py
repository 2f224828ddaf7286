"""The first person made third (textleak.text.voice.user_voice), pinned to its outputs as the request
atomizer and the NLI judge use them."""

import pytest

from textleak.text.voice import FIRST_PERSON, quote_mask, user_voice


def test_first_person_made_third():
    assert user_voice("I want to write my resume") == "the user wants to write their resume"
    assert user_voice("I'm a nurse and I've moved to Leeds") == "the user is a nurse and the user has moved to Leeds"
    assert user_voice("I want you to write me a bio") == "the user wants the assistant to write a bio"
    assert user_voice("We sold our house to us") == "the user and others sold their house to them"
    assert user_voice("I really want it") == "the user really wants it"  # the adverb kept, the verb after it agrees


def test_quoted_text_is_left_as_written():
    assert user_voice('She said "I love my job" to me') == 'She said "I love my job" to the user'
    assert quote_mask('a "b" c') == [False, False, True, True, True, False, False]


def test_a_clause_without_a_first_person_is_returned_as_is():
    text = "The report is due on  Friday."  # not even its spacing is touched
    assert FIRST_PERSON.search(text) is None
    assert user_voice(text) is text


def test_the_writer_for_pasted_text():
    assert user_voice("I have attached my resume.", "the writer") == "the writer has attached their resume."


def test_a_question_makes_its_auxiliary_agree_and_leaves_the_verb_bare():
    # before: "What do the user need", "Can the user gets", "Am the user eligibles"
    assert user_voice("What do I need to bring?") == "What does the user need to bring?"
    assert user_voice("Can I get a refund?") == "Can the user get a refund?"
    assert user_voice("Am I eligible for the visa?") == "Is the user eligible for the visa?"
    assert user_voice("Have I been charged twice?") == "Has the user been charged twice?"
    assert user_voice("Why did I get this error?") == "Why did the user get this error?"


def test_a_plural_subject_keeps_its_verb_and_joined_clauses_still_agree():
    assert user_voice("My wife and I are celebrating our anniversary.") == "the user's wife and the user are celebrating their anniversary."
    assert user_voice("I and my brother were there.") == "the user and their brother were there."
    assert user_voice("It is from 2023 and I want more") == "It is from 2023 and the user wants more"


def test_a_verb_before_punctuation_agrees_and_cannot_stays():
    assert user_voice("Could you tell me if I qualify?") == "Could you tell the user if the user qualifies?"
    assert user_voice("I cannot come.") == "the user cannot come."


def test_a_negated_question_makes_its_auxiliary_agree_too():
    # contractions are expanded first, so the auxiliary before "I" may be "cannot", "do not" or a kept "n't" form
    assert user_voice("Why can't I sleep?") == "Why cannot the user sleep?"  # before: "... the user sleeps?"
    assert user_voice("Why don't I feel hungry?") == "Why does not the user feel hungry?"
    assert user_voice("Shouldn't I see a doctor?") == "Shouldn't the user see a doctor?"
    assert user_voice("Aren't I allowed to go?") == "Isn't the user allowed to go?"


def test_a_contracted_verb_after_i_is_the_verb():
    assert user_voice("I shouldn't go.") == "the user shouldn't go."  # before: "shouldn't goes"
    assert user_voice("I do not know.") == "the user does not know."


@pytest.mark.parametrize("text, want", [
    ("I want to retrain as a mine electrician.", "the user wants to retrain as a mine electrician."),
    ("My dad worked in the coal mine for years.", "the user's dad worked in the coal mine for years."),
    ("That car is mine.", "That car is the user's."),
    ("A friend of mine and I went.", "A friend of the user's and the user went."),
    ("A friend of mine from work came.", "A friend of the user's from work came."),
    ("No, mine is red.", "No, the user's is red."),
    ("Is that mine?", "Is that the user's?"),
    ("that mine closed in 1990", "that mine closed in 1990"),
])
def test_mine_the_place_is_not_mine_the_pronoun(text, want):
    assert user_voice(text) == want
