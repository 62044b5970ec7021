"""Load testing: ``python -m platform_studio.benchmarks.load_test --config load.yaml``."""
