// Remove concepts that have no owner, with their aliases, once every user got their own copy.
UNWIND $ids AS cid
MATCH (c:Memory {id: cid})
WHERE c.type = 'Concept' AND c.user_id IS NULL
OPTIONAL MATCH (a:ConceptAlias)-[:ALIAS_OF]->(c)
WITH c, collect(a) AS aliases
FOREACH (x IN aliases | DETACH DELETE x)
DETACH DELETE c
RETURN count(*) AS deleted
