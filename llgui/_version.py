"""The version of llgui, in a leaf module: every layer may read it without importing the
package root (which reaches the API, llgui.api)."""
__version__ = "0.1.0"
