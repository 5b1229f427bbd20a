// Close the validity of concept relations asserted by the given sources (facts; history is kept).
// Starts from each source by id and walks to the concepts it contains: no scan of all relations.
UNWIND $sources AS sid
MATCH (f:Memory {id: sid})-[:CONTAINS_CONCEPT]->(a:Concept)
WITH DISTINCT sid, a
MATCH (a)-[r]->(:Concept)
WHERE r.source = sid AND r.valid_until IS NULL
SET r.valid_until = $now
RETURN count(r) AS closed
