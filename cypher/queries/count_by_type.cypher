MATCH (n:Memory)
RETURN n.type AS type, count(n) AS count
