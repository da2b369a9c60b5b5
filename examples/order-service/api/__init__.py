"""Order service HTTP API: orders, payments, inventory and background jobs."""

__version__ = "0.4.0"
