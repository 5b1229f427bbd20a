UNWIND $ids AS id
MATCH (n:Memory {id: id})
RETURN properties(n) AS props
