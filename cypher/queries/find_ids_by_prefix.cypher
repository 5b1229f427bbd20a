// Ids starting with a typed prefix; with $user_id only that user's memories (another user's ids
// must look exactly like ids that do not exist).
MATCH (n:Memory)
WHERE n.id STARTS WITH $prefix
  AND ($user_id IS NULL OR n.user_id = $user_id)
RETURN n.id AS id
LIMIT $limit
