"""The simulated Android device: reachable only through ADB and the emulator console.

Nothing outside this package imports it; the rest of mgfarm talks to it over the real protocols.
"""
