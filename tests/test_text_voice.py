"""The first person made third (textleak.text.voice.user_voice), pinned to its outputs as the request
atomizer and the NLI judge use them."""

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
