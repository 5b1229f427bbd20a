// Every edge whose two ends are in $ids.
UNWIND $ids AS id
MATCH (a:Memory {id: id})-[r]->(b:Memory)
WHERE b.id IN $ids
RETURN a.id AS src, type(r) AS type, b.id AS dst, properties(r) AS props
