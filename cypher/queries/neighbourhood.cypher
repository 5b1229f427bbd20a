// A node's neighbourhood within __DEPTH__ hops in one round trip: the nodes (start first, at most
// $limit others) and the edges of the paths that reach them. The traversal stops after $paths
// paths, so the neighbourhood of a hub (a popular concept) costs no more than that of a leaf.
MATCH (start:Memory {id: $id})
OPTIONAL MATCH p = (start)-[__RELS__*1..__DEPTH__]-(m:Memory)
WITH start, p, m LIMIT $paths
WITH start, collect(DISTINCT m)[..$limit] AS found, collect(p) AS paths
RETURN [start] + found AS nodes,
       [p IN paths | [r IN relationships(p) |
         {src: startNode(r).id, dst: endNode(r).id, type: type(r), props: properties(r)}]] AS edges
