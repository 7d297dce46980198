"""The task catalog shipped with mgfarm: YAML templates (`tasks/`) and their checks (`verifiers/`)."""
