// The vector points of one collection (vector.backend = "graph"): a Neo4j 5 vector index named
// after the label (vector_search queries it by that name), range indexes on the point, node and
// user ids.
CREATE VECTOR INDEX __LABEL__ IF NOT EXISTS
FOR (p:__LABEL__) ON (p.embedding)
OPTIONS {indexConfig: {`vector.dimensions`: __DIMENSION__, `vector.similarity_function`: 'cosine'}}
;
CREATE INDEX IF NOT EXISTS FOR (p:__LABEL__) ON (p.point_id)
;
CREATE INDEX IF NOT EXISTS FOR (p:__LABEL__) ON (p.node_id)
;
CREATE INDEX IF NOT EXISTS FOR (p:__LABEL__) ON (p.user_id)
