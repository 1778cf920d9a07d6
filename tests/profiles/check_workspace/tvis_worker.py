raise RuntimeError("the project's tvis_worker module must never shadow the worker")
