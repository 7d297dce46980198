"""What a worker gives back of the memory it keeps for fast frames; `sim/heap.py` says when.

Busy, a worker keeps everything: its freed heap, the raw frames and redraw images of recent screens,
the drawn pictures, the shared screens and each device's frame file pixels. Lightly used (agents that
call a model between steps keep a worker of 32 devices from ever idling, yet leave it most of its
CPU), it gives back each frame file's pixels once the client has read them, and the raw frames and
redraw images: a device's next frame is then rendered and written whole (~3 ms more). Idle, it
gives back everything.
"""

from __future__ import annotations

import asyncio

from mgfarm.sim.framebuffer import RAW, FrameBuffer
from mgfarm.sim.ui import framecache, redraw, render

# A client reads its frame right after the reply; one that misses it (a stall this long) asks again.
READ_SECONDS = 0.2


class Release:
    """The memory a worker's devices hold for fast frames, given back as the worker's use says."""

    def __init__(self, buffers: dict[str, FrameBuffer]) -> None:
        self.buffers = buffers
        self.light = False  # whether the last window the worker worked in was one of light use

    def idle(self) -> None:
        """The worker idles: every frame file's pixels, the kept frames, images, pictures and screens."""
        for buffer in self.buffers.values():
            buffer.release()
        RAW.clear()
        redraw.forget()
        render.forget_drawn()
        framecache.SHARED.clear()

    def worked(self, light: bool) -> None:
        """After each window the worker worked in; `light`: it used little CPU in it."""
        self.light = light
        if light:
            self.read_frames()
            RAW.clear()
            redraw.forget()

    def read_frames(self) -> None:
        """The pixels of every frame file no client was told about for READ_SECONDS."""
        for buffer in self.buffers.values():
            if buffer.quiet_for(READ_SECONDS):
                buffer.release()

    async def while_light(self) -> None:
        """Between the windows, while the worker is lightly used: each frame's pixels go back soon
        after its client read them, not at the window's end."""
        while True:
            await asyncio.sleep(READ_SECONDS)
            if self.light:
                self.read_frames()
