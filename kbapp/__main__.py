import sys

from kbapp.cli.main import main

sys.exit(main())
