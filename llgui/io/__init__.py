"""File formats: one module per format, each returning `llgui.core.types` objects.

Every loader raises `llgui.core.errors.LoadError` listing all problems of a file as
`FILE:LINE: reason`, and never returns a half-loaded object. Never imports Qt.
"""
