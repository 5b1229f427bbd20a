// One user's concepts matching a triple pattern (?s)-[:REL]->(?o), starting from a known end by id:
// $known is the subject's id when the subject is known (then $known_is_subject is true), else the
// object's; $other is the id of the other end when it is known too.
MATCH (k:Memory {id: $known})
WHERE k.user_id = $user_id
WITH k
MATCH (k)-[r]-(m:Concept)
WHERE type(r) = $relation
  AND m.user_id = $user_id
  AND (startNode(r).id = k.id) = $known_is_subject
  AND ($other IS NULL OR m.id = $other)
  AND (r.valid_until IS NULL OR r.valid_until > $now)
RETURN k.id AS known, m.id AS other, r.confidence AS confidence
LIMIT 50
