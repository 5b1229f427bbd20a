"""What one message may cost: the caps that keep the work of a message bounded.

A message (up to ``max_impulse_chars``, 200,000 characters by default) turns into graph writes,
embeddings, lookups and prompts in several places. Each place is capped here, so whatever the
message's shape (a ``~`` chain of 30,000 names, 20,000 ``a::b`` lines, 40,000 distinct words,
one 200,000-character word) the concepts, relations and lookups it causes are bounded by these
numbers and the rest of its cost grows at most linearly with its length. The table in
docs/reliability.md ("Bounded work per message") lists them with what happens to the rest.
"""

from __future__ import annotations

#: Relations the plain notation (``A -> B``, ``A::B``, ``a~b~c``) of one text can assert;
#: parsing stops at this many.
MAX_NOTATION_TRIPLES = 32
#: A ``~`` chain relates every pair of its first names only (6 names: 15 pairs).
MAX_CHAIN_NAMES = 6
#: Longest concept name, in characters (longer "names" are prose, not concepts).
MAX_CONCEPT_CHARS = 60
#: Concepts one ``!fact`` may create or link (relations naming others are dropped).
MAX_FACT_CONCEPTS = 16
#: Concepts one crystallization may create or link (LLM triples and notation together).
MAX_CRYSTAL_CONCEPTS = 8
#: Concepts the planner may put into a plan, and how many of them get linked to the impulse.
MAX_PLAN_CONCEPTS = 9
MAX_LINKED_CONCEPTS = 5
#: Recall: texts searched, characters of each, keyword terms, characters of a term.
MAX_QUERY_TEXTS = 4
MAX_QUERY_CHARS = 2_000
MAX_KEYWORD_TERMS = 12
MAX_TERM_CHARS = 40
#: Share of the model's context window a user's message may fill in a prompt (by the cautious
#: estimate of services/tokens.py); a longer message enters prompts as its head and tail around a
#: marker saying how much was left out (the whole text is stored and searchable).
PROMPT_SHARE = 0.4
#: A message longer than this many characters is a document (a paste): stored as numbered chunks
#: with provenance, while the impulse, the prompts and the conversation cache carry only a
#: summary of at most ``DOCUMENT_SUMMARY_CHARS`` (services/documents.py).
DOCUMENT_CHARS = 8_000
#: Characters per document chunk: about one embedding window (256 tokens) of English text.
DOCUMENT_CHUNK_CHARS = 1_000
DOCUMENT_SUMMARY_CHARS = 400
#: A word in more than this share of a document's chunks does not tell its chunks apart; each
#: chunk keeps at most ``MAX_CHUNK_TERMS`` of the words that do.
COMMON_TERM_SHARE = 0.25
MAX_CHUNK_TERMS = 200
#: A document embeds at most this many of its chunks (evenly spread, first and last included):
#: a 200,000-character paste has ~200-400 chunks, and embedding them all took 53 s on the loaded
#: 2-core machine. The others are found by the keyword stage, which admits chunks anyway.
MAX_EMBEDDED_CHUNKS = 64
