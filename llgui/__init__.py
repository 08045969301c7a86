"""llgui: a desktop evaluator for lifelong-learning systems that learn from a human expert.

Layers: `llgui.core` (computation, no Qt), `llgui.io` (file formats, no Qt), `llgui.cli`
(headless commands) and `llgui.gui` (PySide6 + pyqtgraph). Only `llgui.gui` imports Qt.
"""
__version__ = "0.1.0"
