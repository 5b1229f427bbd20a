"""Answer scores of the LoCoMo paper's QA evaluation (Maharana et al., ACL 2024).

Re-implemented after the evaluation described in the paper and its published evaluation
script (snap-research/locomo, ``task_eval/evaluation.py``):

- *normalisation*: commas dropped, lower case, punctuation dropped, the words "a", "an",
  "the" and "and" dropped, whitespace collapsed;
- *token F1*: F1 of the Porter-stemmed tokens of the prediction and the gold answer;
- *multi-hop* (category 1): prediction and gold split at commas, each gold part scored
  with its best prediction part, mean over the gold parts;
- *open-domain* (category 3): only the gold answer's part before the first ';' counts;
- *adversarial* (category 5, the answer is not in the conversation): 1 when the
  prediction declines to answer, else 0. The paper counts the phrases "no information
  available" and "not mentioned" (its prompt offered "Not mentioned in the conversation"
  as an option); thea's answer prompt asks the model to say it does not know, so the
  phrases of that refusal count as well (see :data:`ABSTAIN_PHRASES`);
- *exact match*: the normalised token sets of prediction and gold are equal (as the
  paper's script defines it; adversarial as above).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache

CATEGORY_MULTI_HOP = 1
CATEGORY_OPEN_DOMAIN = 3
CATEGORY_ADVERSARIAL = 5

#: Refusals counted as the right answer to an adversarial question: the paper's two phrases,
#: then the ways a model says it does not know (what thea's answer prompt asks it to say).
ABSTAIN_PHRASES = (
    "no information available",
    "not mentioned",
    "do not know",
    "don't know",
    "dont know",
    "no information",
    "not enough information",
    "no mention",
    "not in my memor",
    "cannot find",
    "can't find",
)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    text = text.replace(",", "").lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


@lru_cache(maxsize=1)
def _stemmer() -> object:
    try:
        from nltk.stem import PorterStemmer
    except ImportError as exc:  # the paper's stemmer: scores are only comparable with it
        raise SystemExit("the QA benchmark needs nltk (pip install -e '.[dev]')") from exc
    return PorterStemmer()


def _stems(text: str) -> list[str]:
    stemmer = _stemmer()
    return [stemmer.stem(word) for word in normalize_answer(text).split()]  # type: ignore[attr-defined]


def token_f1(prediction: str, gold: str) -> float:
    predicted, wanted = _stems(prediction), _stems(gold)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: str, gold: str) -> float:
    parts = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return sum(max(token_f1(p, g) for p in parts) for g in golds) / len(golds)


def exact_match(prediction: str, gold: str) -> float:
    return float(set(normalize_answer(prediction).split()) == set(normalize_answer(gold).split()))


def abstains(prediction: str) -> bool:
    lowered = prediction.lower().replace("\u2019", "'")
    return any(phrase in lowered for phrase in ABSTAIN_PHRASES)


def score_answer(prediction: str, gold: str, category: int) -> dict[str, float]:
    """{"f1": ..., "em": ...} for one answer, scored as the paper does per category."""
    if category == CATEGORY_ADVERSARIAL:
        value = float(abstains(prediction))
        return {"f1": value, "em": value}
    if category == CATEGORY_OPEN_DOMAIN:
        gold = gold.split(";")[0].strip()
    f1 = multi_answer_f1(prediction, gold) if category == CATEGORY_MULTI_HOP else token_f1(prediction, gold)
    return {"f1": f1, "em": exact_match(prediction, gold)}
