// Number of points in one collection.
MATCH (p:__LABEL__)
RETURN count(p) AS count
