// Typed relations leaving concepts that have no owner, with the user of the memory that asserted
// each one (its source: a crystal or a fact); user_id is null when that memory cannot be found.
UNWIND $ids AS cid
MATCH (a:Memory {id: cid})-[r]->(b:Concept)
WHERE type(r) IN $relations
OPTIONAL MATCH (s:Memory {id: r.source})
RETURN a.name AS subject, type(r) AS relation, b.name AS object, properties(r) AS props,
       s.user_id AS user_id
