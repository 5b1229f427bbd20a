// Resolve normalised names to concepts, by canonical name first, then by alias.
UNWIND $norms AS norm
OPTIONAL MATCH (c:Concept {norm: norm})
OPTIONAL MATCH (:ConceptAlias {norm: norm})-[:ALIAS_OF]->(a:Concept)
WITH norm, coalesce(c, a) AS hit
WHERE hit IS NOT NULL
RETURN norm, properties(hit) AS props
