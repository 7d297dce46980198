"""Gymnasium env over farm replicas, parallel EnvPool, replica leases and the trajectory recorder."""
