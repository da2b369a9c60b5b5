"""What decides whether an index must be rebuilt: bump on any change to what extraction produces."""

EXTRACTOR_VERSION = 42
