"""The PySide6 + pyqtgraph front end. The only package of llgui that imports Qt."""
