UNWIND $ids AS id
MATCH (n:Memory {id: id})
SET n += $props
RETURN count(n) AS matched
