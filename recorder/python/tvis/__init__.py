"""tvis: a step-through debugger for PyTorch training.

The user-facing command is ``tvis run`` (the C++ CLI). This package is the
glue it starts inside the training script's own interpreter: ``tvis._runner``
runs the script as ``python script.py`` would, with ``tvis.session``'s hooks
and the captures of ``tvis.captures`` feeding the native recorder
``_tvis_native`` through the records of ``tvis.records``. Importing ``tvis``
installs nothing; nothing here loads itself into a plain ``python train.py``.
"""

__version__ = "0.1.0"
