"""mgfarm: a farm of verifiable, resettable Android devices for mobile GUI agents."""

__version__ = "0.1.0"
