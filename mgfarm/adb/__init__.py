"""Everything that speaks to an adb server, a device through it, or an emulator console.

One module per protocol concern: `wire` (the smart-socket framing), `server` (the adb server
process and its host services), `shell` (shell and sync on one device), `console` (the emulator
console), `binary` (finding the adb client), `errors` (the one error family). Farm, device, tasks
and snapshots use only this package to reach devices.
"""
