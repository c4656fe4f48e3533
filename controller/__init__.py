"""The table: referee state machine, runtime, hardware adapters, configuration and command line."""
