import sys

from drydock.regression.runner import main

sys.exit(main())
