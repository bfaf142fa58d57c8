"""Pure helpers every layer may use: user-written names and instants, LIKE and host patterns,
catalog locations, credentials inside URLs, the names of the config keys, CPU sets, the host,
fault points for tests, Prometheus metrics. Nothing here holds engine state.

May import: `drydock.engine`.
"""
