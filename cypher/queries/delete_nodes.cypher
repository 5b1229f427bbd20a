// Delete one user's memories for good (forgetting a fact of record): each node with all its edges,
// and the concept relations it asserted, found from the concepts it contains (no scan of all
// relations). Another user's ids match nothing.
UNWIND $ids AS nid
MATCH (n:Memory {id: nid})
WHERE n.user_id = $user_id
OPTIONAL MATCH (n)-[:CONTAINS_CONCEPT]->(:Concept)-[r]->(:Concept)
WHERE r.source = nid
WITH n, nid, collect(DISTINCT r) AS asserted
FOREACH (x IN asserted | DELETE x)
WITH n, nid, size(asserted) AS relations
DETACH DELETE n
RETURN nid AS id, relations
