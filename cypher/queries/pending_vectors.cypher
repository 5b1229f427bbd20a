// Memory nodes whose vectors wait to be computed (written by a bulk import that left the
// embedding to the background), at most $limit of them, oldest wait first.
MATCH (n:Memory)
WHERE n.embed_pending > 0
WITH n
ORDER BY n.embed_pending ASC
LIMIT $limit
RETURN properties(n) AS props
