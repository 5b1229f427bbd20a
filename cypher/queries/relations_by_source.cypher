// Concept relations asserted by one memory (a crystal or a fact: the relation's source), reached
// through the concepts that memory links to, so only its own user's concepts are read.
MATCH (k:Memory {id: $source})-[:INSIGHT_FROM_CONCEPT|CONTAINS_CONCEPT]->(a:Concept)
WHERE a.user_id = k.user_id
WITH DISTINCT k, a
MATCH (a)-[r]->(b:Concept)
WHERE r.source = $source AND b.user_id = k.user_id
RETURN a.name AS subject, type(r) AS relation, b.name AS object, r.confidence AS confidence,
       r.valid_until AS valid_until
