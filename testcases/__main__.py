import sys

from testcases.cli import main

sys.exit(main())
