"""The test suite, grouped by behaviour (tests/README.md); a package for tests.helpers."""
