"""Entry point of ``tvis run``: ``python -m tvis._runner ...`` (the command
line tools/cli/run_command.cpp executes). The runner itself is
``tvis.session.runner``; see there for its arguments and exit codes."""

import sys

from tvis.session.runner import main

if __name__ == "__main__":
    sys.exit(main())
