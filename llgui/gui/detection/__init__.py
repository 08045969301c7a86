"""Widgets of the Detection tab beside the DET plot: the shared threshold, P/R/F, ROC,
score histograms and Q-Q plots (the tab itself is `llgui.gui.detection.tab`)."""
