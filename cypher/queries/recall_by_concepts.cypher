// Memories that mention any of the given concepts (experience via CONTAINS_CONCEPT,
// insights via INSIGHT_FROM_CONCEPT), of one user, still active, inside an optional time window
// (when it happened: event_time for imported dialogue, else when it was recorded).
UNWIND $concept_ids AS cid
MATCH (m:Memory)-[:CONTAINS_CONCEPT|INSIGHT_FROM_CONCEPT]->(c:Concept {id: cid})
WHERE m.user_id = $user_id
  AND coalesce(m.active, true) = true
  AND ($time_from IS NULL OR coalesce(m.event_time, m.created_at) >= $time_from)
  AND ($time_to IS NULL OR coalesce(m.event_time, m.created_at) < $time_to)
RETURN cid, m.id AS id
LIMIT $limit
