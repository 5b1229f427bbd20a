// Every node of several cycles at once (batched trace loading).
UNWIND $correlation_ids AS cid
MATCH (n:Memory)
WHERE n.correlation_id = cid
RETURN cid, properties(n) AS props
