"""Facts of record: statements turned into facts about a subject that supersede older ones."""
