"""Maintenance procedures, one registry per catalog type: CALL <catalog>.sys.<procedure>(...)."""
