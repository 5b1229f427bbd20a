"""The thea service: one long-lived process per data directory.

It owns the engines (the embedded graph server, the vector store, the chronicle), the
embedder, the chat model and the slow loop's workers, and serves one versioned HTTP API
(:mod:`thea.api`) on a unix socket in the data directory (and on TCP when asked). Every
interface (the terminal, the web page, ``thea.Client``, ...) is a client of that API.
"""
