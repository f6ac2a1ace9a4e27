from docintel.cli import main

raise SystemExit(main())
