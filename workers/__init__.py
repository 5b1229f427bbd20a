"""RQ plumbing for the slow reflection loop: queues, jobs, worker."""
