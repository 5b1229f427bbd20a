"""Pasted documents in recall: a paste counts once, and only when the question is about it.

A 200 KB paste is some 200 chunks against a few dozen things the user said; ranked like other
memories, chunks of an unrelated paste filled later answers (measured before this: "The
tideurchin corgi corgi otter ..." quoted in answers to unrelated questions). So:

* a chunk is **admitted** only when the question uses a word that tells it apart within its
  document (``DocumentChunk.terms``: a word in few of the document's chunks). A word all over
  the paste (its filler, or its topic) says nothing about which chunk is meant, so a question
  sharing only such words with a paste is not taken to be about it;
* the paste's **impulse** or remembered turn (the summary: a marker and the paste's first
  sentences, which chunk 0 holds too) is admitted only for a question about the paste as such
  ("What did I paste?");
* its score is weighed by its type weight (``tuning.recall.type_weights``, 0.6 for a chunk);
* **one hit per document**: the best chunk stands for its document, the others are dropped, so
  a paste takes at most one place of the top k.
"""

from __future__ import annotations

from collections.abc import Set

from services.recall.lexical import stem
from services.recall.types import RecallHit
from thea.models import DialogueTurn, DocumentChunk, Node, UserImpulse

#: the words that ask about a paste as such
PASTE_WORDS = frozenset(stem(w) for w in ("paste", "pasted", "document", "documents"))


def admitted(node: Node, query_terms: Set[str]) -> bool:
    """Whether a candidate may be recalled: always, unless it is a chunk that the question's
    (stemmed) words do not tell apart within its document, or a paste's impulse and the
    question is not about a paste."""
    if isinstance(node, DocumentChunk):
        return not query_terms.isdisjoint(node.terms)
    if isinstance(node, (UserImpulse, DialogueTurn)) and node.document_id is not None:
        return not query_terms.isdisjoint(PASTE_WORDS)
    return True


def one_per_document(hits: list[RecallHit]) -> list[RecallHit]:
    """The best hit of each document (hits are best first); hits of no document all stay."""
    seen: set[str] = set()
    kept: list[RecallHit] = []
    for hit in hits:
        if hit.document_id is not None:
            if hit.document_id in seen:
                continue
            seen.add(hit.document_id)
        kept.append(hit)
    return kept
