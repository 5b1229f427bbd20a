MATCH ()-[r]->()
RETURN count(r) AS count
