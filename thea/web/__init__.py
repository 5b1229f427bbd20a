"""Web front-end (chat, trace panel, graph view)."""
