"""Builders and stand-ins shared by the test folders (import as ``tests.helpers.<module>``)."""
