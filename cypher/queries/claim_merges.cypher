// Atomically create merged insights and archive their sources, but only for groups whose
// sources are ALL still active: a group that lost a race with another reflection is skipped
// and writes nothing, so no insight is ever merged twice and none is both active and merged.
// Rows: {id: merged id, sources: [source ids], props: merged insight properties}
UNWIND $groups AS g
UNWIND g.sources AS source_id
MATCH (s:Memory {id: source_id})
WHERE s.type = 'KnowledgeCrystal' AND s.active = true
WITH g, collect(s) AS srcs
WHERE size(srcs) = size(g.sources)
MERGE (m:Memory {id: g.id})
SET m += g.props
SET m:KnowledgeCrystal
WITH g, m, srcs
UNWIND srcs AS s
SET s.active = false, s.merged_into = g.id
MERGE (m)-[r:MERGED_FROM]->(s)
SET r.created_at = $now
RETURN g.id AS id, count(s) AS archived
