// Every node of one cognitive cycle (and the jobs that followed it), oldest first.
MATCH (n:Memory)
WHERE n.correlation_id = $correlation_id
RETURN properties(n) AS props
ORDER BY n.created_at ASC
