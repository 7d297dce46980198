"""Kubernetes manifests for a farm: one device per pod in a StatefulSet behind a headless Service."""

from mgfarm.k8s.manifests import RenderOptions, parse_kind, render_documents
from mgfarm.k8s.render import write_manifests

__all__ = ["RenderOptions", "parse_kind", "render_documents", "write_manifests"]
