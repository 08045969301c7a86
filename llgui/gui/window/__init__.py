"""The main window's parts beside `llgui.gui.main_window`: opening bundles and campaigns, the
menus and the actions they start, the session."""
