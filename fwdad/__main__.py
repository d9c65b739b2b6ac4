"""`python -m fwdad`: the fwdad command line (see fwdad.cli)."""
from fwdad.cli import main

raise SystemExit(main())
