"""`python -m scratchpad_lab.cli`: the same command as `scratchpad-lab`."""
import sys

from scratchpad_lab.cli import main

sys.exit(main())
