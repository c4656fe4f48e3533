"""Per-table configuration: one TOML file, validated into typed dataclasses on load."""
