"""`python -m flydsl`: the flydsl command."""
import sys

from flydsl.cli import main

sys.exit(main())
