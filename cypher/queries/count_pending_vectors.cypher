// How many memory nodes wait for their vectors (see pending_vectors).
MATCH (n:Memory)
WHERE n.embed_pending > 0
RETURN count(n) AS pending
