// Aliases (without an owner) of concepts that have no owner.
UNWIND $ids AS cid
MATCH (a:ConceptAlias)-[:ALIAS_OF]->(c:Memory {id: cid})
WHERE a.user_id IS NULL
RETURN cid, a.norm AS norm
