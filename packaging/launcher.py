"""Entry script of the frozen app (PyInstaller): the same ``tacmap`` command as the wheel's."""

import multiprocessing

from tacmap.cli import main

# A forecast worker of the frozen app is this same program started again: it runs here.
multiprocessing.freeze_support()

raise SystemExit(main())
