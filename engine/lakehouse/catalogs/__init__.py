"""External catalogs: the registry of connector types and the durable catalog manager."""
