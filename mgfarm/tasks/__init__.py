"""Verifiable tasks: template schema, parameters, setup steps, judge, catalog, agents, jobs, report."""
