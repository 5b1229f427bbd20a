MATCH (n:Memory)
WHERE n.id STARTS WITH $prefix
RETURN n.id AS id
LIMIT $limit
