"""Faces of thea for other programs, built on the service's API through :mod:`thea.client`
(no engine, no model): the MCP server and the LangChain retriever and chat model."""
