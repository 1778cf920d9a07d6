"""Grad-CAM capture: maps per followed sample and conv layer (maps.py), user hooks silenced (guard.py)."""
