"""The slow loop: crystallize, distill, merge (reflect), grouping, groundedness, job traces."""
