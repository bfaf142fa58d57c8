"""Lance index jobs: states (pure), durable records, manager, admission, refresh and retention."""
