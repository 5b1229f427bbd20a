// How many of a user's facts and insights, other than those being erased, contain each concept:
// a concept none supports any more is erased with them.
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
WHERE c.user_id = $user_id
OPTIONAL MATCH (m:Memory)-[:CONTAINS_CONCEPT|INSIGHT_FROM_CONCEPT]-(c)
WHERE m.type IN ['Fact', 'KnowledgeCrystal'] AND NOT m.id IN $leaving
RETURN cid AS id, count(DISTINCT m) AS supporters
