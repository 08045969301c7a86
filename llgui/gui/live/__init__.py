"""The live session window: the expert at the keyboard is the oracle (DESIGN.md section 8)."""
