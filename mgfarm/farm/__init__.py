"""Starting, tracking and stopping N devices on a backend."""
