"""Entry script of the frozen app (PyInstaller): the same ``tacmap`` command as the wheel's."""

from tacmap.cli import main

raise SystemExit(main())
