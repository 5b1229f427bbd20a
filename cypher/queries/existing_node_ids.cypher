// Which of these ids are memory nodes (batched existence check for consistency scans).
UNWIND $ids AS id
MATCH (n:Memory {id: id})
RETURN n.id AS id
