import sys

from regression.runner import main

sys.exit(main())
