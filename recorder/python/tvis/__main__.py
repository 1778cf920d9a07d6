"""``python -m tvis ARGS``: the ``tvis`` command (tvis._cli), so that
``torchrun --nproc-per-node K -m tvis run train.py ...`` records each rank."""
import sys

from tvis._cli import main

sys.exit(main())
