// MERGE edges of one type between existing nodes. Rows: {src, dst, props}
UNWIND $rows AS row
MATCH (a:Memory {id: row.src})
MATCH (b:Memory {id: row.dst})
MERGE (a)-[r:__REL__]->(b)
SET r += row.props
RETURN count(r) AS written
