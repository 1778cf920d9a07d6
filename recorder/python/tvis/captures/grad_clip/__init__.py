"""Gradient clipping: each clip_grad_norm_ call of a recorded step (capture.py)."""
