"""What one message may cost: the caps that keep the work of a message bounded.

The numbers live with every other tunable in :mod:`thea.tuning` (its comments say what each
caps); the table in docs/reliability.md ("Bounded work per message") lists them with what
happens to the rest.
"""

from __future__ import annotations

from thea.tuning import (
    COMMON_TERM_SHARE,
    DOCUMENT_CHARS,
    DOCUMENT_CHUNK_CHARS,
    DOCUMENT_SUMMARY_CHARS,
    MAX_CHAIN_NAMES,
    MAX_CHUNK_TERMS,
    MAX_CONCEPT_CHARS,
    MAX_CRYSTAL_CONCEPTS,
    MAX_EMBEDDED_CHUNKS,
    MAX_FACT_CONCEPTS,
    MAX_KEYWORD_TERMS,
    MAX_LINKED_CONCEPTS,
    MAX_NOTATION_TRIPLES,
    MAX_PLAN_CONCEPTS,
    MAX_QUERY_CHARS,
    MAX_QUERY_TEXTS,
    MAX_TERM_CHARS,
    PROMPT_SHARE,
    TRACE_TEXT_CHARS,
)

__all__ = [
    "COMMON_TERM_SHARE",
    "DOCUMENT_CHARS",
    "DOCUMENT_CHUNK_CHARS",
    "DOCUMENT_SUMMARY_CHARS",
    "MAX_CHAIN_NAMES",
    "MAX_CHUNK_TERMS",
    "MAX_CONCEPT_CHARS",
    "MAX_CRYSTAL_CONCEPTS",
    "MAX_EMBEDDED_CHUNKS",
    "MAX_FACT_CONCEPTS",
    "MAX_KEYWORD_TERMS",
    "MAX_LINKED_CONCEPTS",
    "MAX_NOTATION_TRIPLES",
    "MAX_PLAN_CONCEPTS",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_TEXTS",
    "MAX_TERM_CHARS",
    "PROMPT_SHARE",
    "TRACE_TEXT_CHARS",
]
