// Close the validity of concept relations asserted by the given sources (history is kept).
MATCH (:Concept)-[r]->(:Concept)
WHERE r.source IN $sources AND r.valid_until IS NULL
SET r.valid_until = $now
RETURN count(r) AS closed
