// Memory nodes after an id cursor, in id order: keyset pagination for consistency scans.
MATCH (n:Memory)
WHERE n.id > $after_id
RETURN properties(n) AS props
ORDER BY n.id ASC
LIMIT $limit
