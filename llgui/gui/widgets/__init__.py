"""Widgets and plot items shared by several tabs: the probit axis, plot export."""
