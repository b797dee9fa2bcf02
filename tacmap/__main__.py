"""``python -m tacmap`` is the ``tacmap`` command."""

from tacmap.cli import main

raise SystemExit(main())
