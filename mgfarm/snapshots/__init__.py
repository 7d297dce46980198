"""Golden snapshots: recipes (YAML), building them on a backend, manifests, and the farm's check."""
