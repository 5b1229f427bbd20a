"""A claim whose quote the model spelt out ("I'm" for the user's "im") is kept, quoted with the
user's own sentence (seen live: "hey, im Dana. i work as a vet nurse in bristol and im vegan"
lost the diet: the model quoted "I'm vegan", which the message does not hold)."""

from __future__ import annotations

import pytest

from services.knowledge.claims.verify import check
from services.prompts.extract_claims import ClaimOut
from tests.claims_support import said

# (the message as typed, the claim as the model spelt it, the sentence kept as its quote)
CASES = [
    (
        "hey, im Dana. i work as a vet nurse in bristol and im vegan",
        said("I'm vegan", "diet", "vegan"),
        "i work as a vet nurse in bristol and im vegan",
    ),
    (
        "dont eat pork anymore, doc said so",
        said("don't eat pork anymore", "diet", "no pork"),
        "dont eat pork anymore, doc said so",
    ),
    (
        "ive got two cats now. theyre called Salt and Pepper",
        said("they're called Salt and Pepper", "cats", "Salt and Pepper"),
        "theyre called Salt and Pepper",
    ),
    (
        "my sisters moving to leeds. shes got a job at the uni",
        said("she's got a job at the uni", "job", "the uni", subject="sister", relation="sister"),
        "shes got a job at the uni",
    ),
]


@pytest.mark.parametrize(("message", "claim", "sentence"), CASES)
def test_a_quote_with_apostrophes_the_user_left_out_is_kept_with_their_sentence(
    message: str, claim: ClaimOut, sentence: str
) -> None:
    checked = check(claim, message)
    assert checked is not None
    assert checked.claim.quote == sentence  # the user's words, never the model's spelling
    assert checked.claim.quote in message


@pytest.mark.parametrize(
    ("message", "quote"),
    [
        ("im not vegan, never was", "I'm vegan"),  # a word left out that says the opposite
        ("hey, im Dana", "I'm Diana"),  # other words
        ("its a long way to the coast", "it's a long way to Leeds"),
    ],
)
def test_words_spelt_out_that_the_user_did_not_write_are_not_quoted(message: str, quote: str) -> None:
    assert check(said(quote, "note", quote.split()[-1]), message) is None
