// Nodes within __DEPTH__ hops of a start node, start node included.
MATCH (start:Memory {id: $id})
OPTIONAL MATCH (start)-[__RELS__*1..__DEPTH__]-(m:Memory)
WITH start, collect(DISTINCT m)[..$limit] AS found
RETURN [start] + found AS nodes
