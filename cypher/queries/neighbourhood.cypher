// A node's neighbourhood within __DEPTH__ hops in one round trip: the nodes (start first, at most
// $limit others) and the edges of the paths that reach them. The traversal stops after $paths
// paths, so the neighbourhood of a hub (a popular concept) costs no more than that of a leaf.
// With $user_id the start and every node on a path must belong to that user: the walk never
// passes through another user's memories or concepts.
MATCH (start:Memory {id: $id})
WHERE $user_id IS NULL OR start.user_id = $user_id
OPTIONAL MATCH p = (start)-[__RELS__*1..__DEPTH__]-(m:Memory)
WHERE $user_id IS NULL OR all(x IN nodes(p) WHERE x.user_id = $user_id)
WITH start, p, m LIMIT $paths
WITH start, collect(DISTINCT m)[..$limit] AS found, collect(p) AS paths
RETURN [start] + found AS nodes,
       [p IN paths | [r IN relationships(p) |
         {src: startNode(r).id, dst: endNode(r).id, type: type(r), props: properties(r)}]] AS edges
