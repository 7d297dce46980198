"""Rollouts across hosts on a Ray cluster: one farm per node, episodes wherever a replica is free.

Needs the optional extra: `pip install 'mgfarm[ray]'`.
"""

from mgfarm.ray.pool import RayEnvPool

__all__ = ["RayEnvPool"]
