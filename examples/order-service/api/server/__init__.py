"""HTTP layer: plain handler functions, a router and an http.server adapter."""
