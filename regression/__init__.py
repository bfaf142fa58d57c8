"""Groovy-style regression suites run against a live drydock over the MySQL protocol.

May import: nothing of drydock (the suites see the server only through the wire).
"""
