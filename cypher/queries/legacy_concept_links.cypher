// Links from users' memories to concepts that have no owner (shared concepts written before
// concepts were per user), for `thea memory repair` to move them onto each user's own concept.
UNWIND $ids AS cid
MATCH (c:Memory {id: cid})<-[l:CONTAINS_CONCEPT|INSIGHT_FROM_CONCEPT]-(m:Memory)
WHERE m.user_id IS NOT NULL
RETURN cid, m.id AS src, m.user_id AS user_id, type(l) AS type, properties(l) AS props
