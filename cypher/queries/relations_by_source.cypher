// Concept relations recorded with a given provenance (e.g. the crystal that asserted them).
MATCH (a:Concept)-[r]->(b:Concept)
WHERE r.source = $source
RETURN a.name AS subject, type(r) AS relation, b.name AS object, r.confidence AS confidence,
       r.valid_until AS valid_until
