// Resolve normalised names to one user's concepts: the canonical concept first (its id derives
// from the user and the name, rows: {norm, id}), then that user's aliases. Another user's concepts,
// and shared ones from before concepts were per user (user_id null), are never returned.
UNWIND $rows AS row
OPTIONAL MATCH (c:Memory {id: row.id})
WHERE c.type = 'Concept' AND c.user_id = $user_id
OPTIONAL MATCH (:ConceptAlias {user_id: $user_id, norm: row.norm})-[:ALIAS_OF]->(a:Concept)
WHERE a.user_id = $user_id
WITH row.norm AS norm, coalesce(c, a) AS hit
WHERE hit IS NOT NULL
RETURN norm, properties(hit) AS props
