// The vector points of one collection (vector.backend = "graph"), one label per collection:
// FalkorDB's HNSW vector index on the embedding, exact-match indexes on the point, node and user ids.
CREATE VECTOR INDEX FOR (p:__LABEL__) ON (p.embedding) OPTIONS {dimension: __DIMENSION__, similarityFunction: 'cosine'}
;
CREATE INDEX FOR (p:__LABEL__) ON (p.point_id)
;
CREATE INDEX FOR (p:__LABEL__) ON (p.node_id)
;
CREATE INDEX FOR (p:__LABEL__) ON (p.user_id)
