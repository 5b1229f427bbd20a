// Memories that mention any of the given concepts (experience via CONTAINS_CONCEPT,
// insights via INSIGHT_FROM_CONCEPT), of one user, still active, inside an optional time window
// (when it happened: event_time for imported dialogue, else when it was recorded).
// Start from the concept (id index), then walk its incoming links: otherwise the planner may scan
// every memory of the user looking for the concept (measured: 100 ms instead of 1 ms at 40k).
UNWIND $concept_ids AS cid
MATCH (c:Memory {id: cid})
WHERE c.user_id = $user_id
WITH cid, c
MATCH (c)<-[:CONTAINS_CONCEPT|INSIGHT_FROM_CONCEPT]-(m:Memory)
WHERE m.user_id = $user_id
  AND coalesce(m.active, true) = true
  AND ($time_from IS NULL OR coalesce(m.event_time, m.created_at) >= $time_from)
  AND ($time_to IS NULL OR coalesce(m.event_time, m.created_at) < $time_to)
RETURN cid, m.id AS id
LIMIT $limit
