"""Who may do what, and what is remembered of it: accounts (``users.py``), roles and grants
(``privileges.py``), the rule for acting on accounts (``account_rule.py``), the audit log
(``audit.py``) and the masking of secrets in values and free text (``redact.py``; statement
text is masked by grammar/redact.py).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`.
"""
