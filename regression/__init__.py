"""Groovy-style regression suites run against a live drydock over the MySQL protocol."""
