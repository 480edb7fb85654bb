"""A fact the model cut down to its value is kept in the user's own sentence."""

import pytest

from gaia_lite.agent.facts import in_user_words


@pytest.mark.parametrize("fact, message, kept", [
    ("KX-4821", "Please remember that my car's licence plate is KX-4821.", "My car's licence plate is KX-4821"),
    ("KX-4821", "Hi. Can you note: plate KX-4821 is my car. Thanks!", "Plate KX-4821 is my car"),
    ("dark mode", "Don't forget I prefer dark mode", "I prefer dark mode"),
])
def test_a_piece_of_the_users_sentence_becomes_the_sentence(fact, message, kept):
    assert in_user_words(fact, message) == kept


@pytest.mark.parametrize("fact, message", [
    ("The user prefers dark mode", "remember I prefer dark mode"),   # the model's own wording says more
    ("likes tea", "I like coffee."),                                 # not from the message at all
    ("My car's licence plate is KX-4821", "Please remember that my car's licence plate is KX-4821."),
    ("", "remember this"),
])
def test_a_self_contained_fact_is_left_alone(fact, message):
    assert in_user_words(fact, message) == fact
