"""The headless command line (DESIGN.md section 7): never imports Qt."""
