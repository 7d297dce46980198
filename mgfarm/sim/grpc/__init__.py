"""The emulator's gRPC control API (EmulatorController, SnapshotService) on a simulated device."""
