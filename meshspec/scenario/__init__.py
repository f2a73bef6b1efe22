"""The scenario format: the typed model (format 1), the loader that validates YAML against it,
the JSON Schema, and a cheap sniffer that tells scenario files from other YAML."""
