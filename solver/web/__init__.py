"""`kniffel serve`: an offline web page and JSON API over the public API (needs the `web` extra)."""
