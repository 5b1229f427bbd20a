"""Clients of the thea service's API: :class:`Client` (blocking) and :class:`AsyncClient`."""

from thea.client.asynchronous import AsyncClient
from thea.client.events import ChatEvent, Command, Done, Token
from thea.client.sync import Client, ExportStream

__all__ = ["AsyncClient", "ChatEvent", "Client", "Command", "Done", "ExportStream", "Token"]
