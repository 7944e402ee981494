"""Several bot processes on one PostgreSQL database, one token: one bot."""
