"""Embeddings capture: per-sample vectors at top-level modules; nn.Embedding tables."""
