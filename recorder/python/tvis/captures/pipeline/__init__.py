"""Data-pipeline capture: dataset items and transforms of followed samples; DataLoader workers emulated."""
