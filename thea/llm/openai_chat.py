"""An OpenAI-compatible endpoint that decodes to the JSON schema it is sent.

Without the schema a small model behind the endpoint answers a one-word choice as the word
("identity", not ``{"kind": "identity"}``); the corrective retry then got another choice than
its first, and "We moved to York last month." was sorted as a passing moment and never kept
(tests/slow/test_remote_model.py, the 1.5B behind llama.cpp's server). With the schema as
``response_format`` (thea/llm/structured.py) the endpoint reads exactly as the offline model does.
Needs the ``server`` extra (``langchain-openai``).
"""

from __future__ import annotations

from langchain_openai import ChatOpenAI


class SchemaChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` that is sent each structured call's JSON schema (``llm.json_schema``)."""

    supports_json_schema: bool = True
