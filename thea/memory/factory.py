"""Build the memory layers from settings (the memory part of the composition root).

The only place that chooses adapters by backend name; services receive the built
:class:`UniversalMemory` and never ask which backend is behind it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from thea.config import Settings
from thea.errors import ConfigError
from thea.memory.chronicle.base import Chronicle
from thea.memory.consistency import Damage
from thea.memory.embedded_server import EmbeddedFalkorDB, Loading
from thea.memory.graph.base import GraphStore
from thea.memory.universal import UniversalMemory
from thea.memory.vector.base import VectorStore
from thea.storage import (
    SpaceGuard,
    prepare_data_dir,
    require_space,
    require_writable,
    vector_store_need,
)

log = logging.getLogger(__name__)


def data_dir(settings: Settings) -> Path:
    """The data directory, created if needed; :class:`StorageError` if thea cannot write there."""
    return prepare_data_dir(settings.data_dir)


def uses_data_dir(settings: Settings) -> bool:
    """Whether any memory layer keeps its files in the data directory (the embedded ones)."""
    embedded_vectors = settings.vector.backend == "qdrant_edge"
    return settings.embedded_graph or embedded_vectors or settings.chronicle.backend == "sqlite"


def embedded_server(
    settings: Settings, on_loading: Callable[[Loading], None] | None = None
) -> EmbeddedFalkorDB:
    """The embedded FalkorDB (redis-server) of this data dir: graph and queue share it
    (``on_loading``: told what it loads while a start waits for it)."""
    return EmbeddedFalkorDB(
        data_dir(settings),
        appendfsync=settings.graph.appendfsync,
        bolt_port=settings.graph.bolt_port,
        on_loading=on_loading,
    )


def build_graph(settings: Settings, server: EmbeddedFalkorDB | None = None) -> GraphStore:
    cfg = settings.graph
    if cfg.backend == "neo4j":
        from thea.memory.graph.neo4j import Neo4jGraphStore

        return Neo4jGraphStore(
            uri=cfg.neo4j_uri,
            user=cfg.neo4j_user,
            password=cfg.neo4j_password.get_secret_value(),
            database=cfg.neo4j_database,
            batch_size=cfg.batch_size,
            timeout_ms=cfg.query_timeout_ms,
        )
    from thea.memory.graph.falkordb import FalkorDBGraphStore

    if cfg.falkordb_url:
        return FalkorDBGraphStore(
            url=cfg.falkordb_url,
            graph_name=cfg.graph_name,
            batch_size=cfg.batch_size,
            timeout_ms=cfg.query_timeout_ms,
            answer_timeout_s=cfg.answer_timeout_s,
        )
    return FalkorDBGraphStore(
        server=server or embedded_server(settings),
        graph_name=cfg.graph_name,
        batch_size=cfg.batch_size,
        timeout_ms=cfg.query_timeout_ms,
        answer_timeout_s=cfg.answer_timeout_s,
    )


def build_vectors(settings: Settings, graph: GraphStore | None = None) -> VectorStore:
    """The vector store of these settings; ``vector.backend = "graph"`` keeps the vectors in
    ``graph`` (the graph store's own vector index, over its connection)."""
    cfg = settings.vector
    dim = settings.embedding.dimension
    if cfg.backend == "graph":
        from thea.memory.graph.cypher_store import CypherGraphStore
        from thea.memory.vector.graph_index import GraphIndexStore

        if not isinstance(graph, CypherGraphStore):
            raise ConfigError(
                'vector.backend = "graph" needs a Cypher graph store (graph.backend falkordb or neo4j)'
            )
        return GraphIndexStore(graph.cypher_access(), dimension=dim)
    if cfg.backend == "qdrant":
        from thea.memory.vector.qdrant_server import QdrantServerStore

        key = cfg.qdrant_api_key.get_secret_value() if cfg.qdrant_api_key else None
        return QdrantServerStore(url=cfg.qdrant_url, api_key=key, prefix=cfg.collection_prefix, dimension=dim)
    from thea.memory.vector.qdrant_edge import QdrantEdgeStore

    folder = data_dir(settings) / "vectors"
    if folder.exists():
        require_writable(folder)
    require_space(folder, vector_store_need(folder), "opening the vector store")
    return QdrantEdgeStore(folder, dimension=dim, hnsw_ef=cfg.hnsw_ef)


def build_chronicle(settings: Settings, server: EmbeddedFalkorDB | None = None) -> Chronicle:
    cfg = settings.chronicle
    if cfg.backend == "redis":
        import redis

        from thea.memory.chronicle.redis import RedisChronicle

        if settings.queue.redis_url:
            client = redis.Redis.from_url(settings.queue.redis_url)
        else:
            client = (server or embedded_server(settings)).start().client()
        return RedisChronicle(client, key_prefix=cfg.redis_key_prefix)
    from thea.memory.chronicle.sqlite import SQLiteChronicle

    folder = data_dir(settings)
    require_space(folder, 0, "opening the chronicle")
    return SQLiteChronicle(folder / "chronicle.sqlite3")


def _open_graph_and_vectors(
    settings: Settings, server: EmbeddedFalkorDB | None
) -> tuple[GraphStore, VectorStore]:
    """The graph and vector stores, each closed again if the other cannot be opened."""
    if settings.vector.backend == "graph":  # the vectors live in the graph: the graph comes first
        graph = build_graph(settings, server)
        try:
            return graph, build_vectors(settings, graph)
        except BaseException:
            graph.close()
            raise
    # The embedded vector store is opened first: it is locked by one process at a time, and a
    # process that cannot have it must fail before it starts the graph server, which it would
    # own and stop on its way out, under the feet of the process that holds the store.
    vectors = build_vectors(settings)
    try:
        return build_graph(settings, server), vectors
    except BaseException:
        vectors.close()
        raise


def open_memory(
    settings: Settings,
    *,
    ensure_schema: bool = True,
    on_loading: Callable[[Loading], None] | None = None,
) -> UniversalMemory:
    """Open every memory layer for these settings (starting embedded engines as needed;
    ``on_loading`` is told what the embedded graph server loads while its start waits)."""
    from thea.memory.embeddings import build_embeddings

    server = embedded_server(settings, on_loading) if settings.embedded_graph else None
    graph, vectors = _open_graph_and_vectors(settings, server)
    try:
        chronicle = build_chronicle(settings, server)
        embedder = build_embeddings(settings.embedding)
    except BaseException:
        vectors.close()
        graph.close()
        raise
    guard = SpaceGuard(data_dir(settings)) if uses_data_dir(settings) else None
    memory = UniversalMemory(
        graph, vectors, chronicle, embedder, dimension=settings.embedding.dimension, space_guard=guard
    )
    if ensure_schema:
        memory.ensure_schema()
    return memory


def open_for_maintenance(settings: Settings, *, fix: bool) -> tuple[UniversalMemory, list[Damage]]:
    """Open every layer for ``thea memory check`` (``fix=False``) or ``repair`` (``fix=True``).

    Unlike :func:`open_memory`, an embedded chronicle or vector collection whose files cannot
    be read does not stop it: the damage is returned; with ``fix`` the damaged file or
    directory has been moved aside and an empty one opened in its place (see
    ``thea.memory.salvage``), which the repair scan refills from the graph.
    """
    from thea.memory.embeddings import build_embeddings
    from thea.memory.salvage import open_edge_vectors, open_sqlite_chronicle

    damage: list[Damage] = []
    server = embedded_server(settings) if settings.embedded_graph else None
    graph = build_graph(settings, server)
    try:
        if settings.vector.backend == "qdrant_edge":
            vectors = open_edge_vectors(data_dir(settings) / "vectors", settings, fix=fix, damage=damage)
        else:
            vectors = build_vectors(settings, graph)
        try:
            if settings.chronicle.backend == "sqlite":
                path = data_dir(settings) / "chronicle.sqlite3"
                chronicle = open_sqlite_chronicle(path, fix=fix, damage=damage)
            else:
                chronicle = build_chronicle(settings, server)
            embedder = build_embeddings(settings.embedding)
        except BaseException:
            vectors.close()
            raise
    except BaseException:
        graph.close()
        raise
    memory = UniversalMemory(graph, vectors, chronicle, embedder, dimension=settings.embedding.dimension)
    graph.ensure_schema()
    return memory, damage
