"""Attention capture: softmax weights of project code; attention inside torch named (library.py)."""
