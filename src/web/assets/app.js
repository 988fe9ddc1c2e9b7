// kurz web UI
