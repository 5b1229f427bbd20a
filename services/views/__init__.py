"""Read models over memory: traces, insights, exports."""
