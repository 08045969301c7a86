"""Plumbing that knows no science: atomic writes, an identity-keyed cache. Imports nothing of llgui."""
