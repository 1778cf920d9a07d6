# A project package named like a worker helper: the worker must not collide with it.
SCALE = 1.0
