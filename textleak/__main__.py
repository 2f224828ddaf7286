from textleak.cli import main

raise SystemExit(main())
