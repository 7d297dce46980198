"""The UI toolkit of the simulated device: view trees, layout, Pillow rendering, uiautomator XML."""
