"""python -m solver.cli"""

from . import main

main()
