"""Benchmark suites from other projects, run unchanged on a farm (`mgfarm eval --suite androidworld`)."""
