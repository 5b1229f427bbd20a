// Erase one user's concepts for good: each with its aliases and every edge (its relations too).
UNWIND $ids AS cid
MATCH (c:Concept {id: cid})
WHERE c.user_id = $user_id
OPTIONAL MATCH (a:ConceptAlias)-[:ALIAS_OF]->(c)
WITH c, cid, collect(a) AS aliases
FOREACH (x IN aliases | DETACH DELETE x)
DETACH DELETE c
RETURN cid AS id
