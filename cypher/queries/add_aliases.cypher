// Rows: {concept_id, norm, user_id}. An alias belongs to the user of the concept it points at.
UNWIND $rows AS row
MATCH (c:Concept {id: row.concept_id})
WHERE c.user_id = row.user_id
MERGE (a:ConceptAlias {user_id: row.user_id, norm: row.norm})
MERGE (a)-[:ALIAS_OF]->(c)
RETURN count(a) AS written
