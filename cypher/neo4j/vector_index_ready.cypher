// Whether one collection's vector index is built (Neo4j populates it in the background; the vector
// procedure refuses an index that is not online).
SHOW VECTOR INDEXES YIELD name, state
WHERE name = '__LABEL__'
RETURN state = 'ONLINE' AS ready
