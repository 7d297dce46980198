"""The descriptor pool of the sim's gRPC messages: its own, so that a process may also load android_env's
bindings of the same emulator API (one pool cannot hold two files defining the same names)."""

from __future__ import annotations

from google.protobuf import descriptor_pool, empty_pb2

POOL = descriptor_pool.DescriptorPool()
POOL.AddSerializedFile(empty_pb2.DESCRIPTOR.serialized_pb)
