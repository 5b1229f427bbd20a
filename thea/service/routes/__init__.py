"""The service's API routes, one module per area (all under :data:`thea.api.PREFIX`)."""
