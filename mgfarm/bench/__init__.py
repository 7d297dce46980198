"""`mgfarm bench`: start-up, memory, reset/step/judge latency and throughput against replica count."""
