// Rows: {concept_id, norm}. An alias points at one concept.
UNWIND $rows AS row
MATCH (c:Concept {id: row.concept_id})
MERGE (a:ConceptAlias {norm: row.norm})
MERGE (a)-[:ALIAS_OF]->(c)
RETURN count(a) AS written
