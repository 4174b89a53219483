"""Training recipes (MaskablePPO, self-play) and experiments over the batch engine.

Imports torch and stable-baselines3 only inside the modules that need them.
"""
