"""Rebuilding an image removes the one it replaced, unless something still uses it."""

from __future__ import annotations

import io
import tarfile
from typing import Any

from mgfarm.farm.images import BASE_IMAGE, drop_replaced, image_id

TAG = "mgfarm-test/replaced:latest"


def build(client: Any, revision: int) -> str:
    """A tiny image on the base (a label only), tagged TAG; returns its id."""
    dockerfile = f"FROM {BASE_IMAGE}\nLABEL org.mgfarm.test.revision={revision}\n".encode()
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(dockerfile)
        tar.addfile(info, io.BytesIO(dockerfile))
    context.seek(0)
    image, _ = client.images.build(fileobj=context, custom_context=True, tag=TAG, rm=True)
    return str(image.id)


def test_a_rebuild_drops_the_replaced_image_unless_in_use(engine: Any, sim_image: str) -> None:
    client = engine
    try:
        first = build(client, 1)
        second = build(client, 2)
        drop_replaced(client, first, TAG)
        assert first not in {i.id for i in client.images.list(all=True)}
        held = client.containers.create(second, command=["true"])  # a stopped container still uses it
        try:
            build(client, 3)
            drop_replaced(client, second, TAG)
            assert second in {i.id for i in client.images.list(all=True)}
        finally:
            held.remove()
        drop_replaced(client, second, TAG)
        assert second not in {i.id for i in client.images.list(all=True)}
        drop_replaced(client, image_id(client, TAG), TAG)  # the current image is never dropped
        assert image_id(client, TAG) is not None
    finally:
        client.images.remove(TAG, force=True)
