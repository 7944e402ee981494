"""Several bot processes on one database: leases, routing, and the processes themselves."""
