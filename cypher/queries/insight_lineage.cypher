// One insight with its concepts, relations it asserted, source impulse and merge lineage both ways.
MATCH (k:KnowledgeCrystal {id: $id})
OPTIONAL MATCH (k)-[:INSIGHT_FROM_CONCEPT]->(c:Concept)
WHERE c.user_id = k.user_id
OPTIONAL MATCH (k)-[:MERGED_FROM]->(src:KnowledgeCrystal)
OPTIONAL MATCH (parent:KnowledgeCrystal)-[:MERGED_FROM]->(k)
OPTIONAL MATCH (k)-[:DERIVED_FROM]->(imp:UserImpulse)
RETURN properties(k) AS props,
       collect(DISTINCT c.name) AS concepts,
       collect(DISTINCT src.id) AS merged_from,
       collect(DISTINCT parent.id) AS merged_into,
       collect(DISTINCT imp.id) AS source_impulses
