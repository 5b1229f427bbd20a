"""What users do to their memory: facts, feedback, forgetting, importing history."""
