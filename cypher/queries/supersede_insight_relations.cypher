// Close the validity of concept relations asserted by the given insights (history is kept).
// Starts from each insight by id and walks to the concepts it links: no scan of all relations.
UNWIND $sources AS sid
MATCH (k:Memory {id: sid})-[:INSIGHT_FROM_CONCEPT]->(a:Concept)
WITH DISTINCT sid, a
MATCH (a)-[r]->(:Concept)
WHERE r.source = sid AND r.valid_until IS NULL
SET r.valid_until = $now
RETURN count(r) AS closed
