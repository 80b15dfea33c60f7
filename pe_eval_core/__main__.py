"""Allow `python -m pe_eval_core ...`."""

import sys

from pe_eval_core.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
