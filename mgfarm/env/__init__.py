"""Gymnasium env over farm replicas, parallel EnvPool, replica leases, the trajectory recorder and the
episode runner of eval, run-task and `tasks check`."""
