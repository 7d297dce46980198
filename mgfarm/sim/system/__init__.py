"""System services of the simulated device: filesystem, properties, settings, packages, activities."""
