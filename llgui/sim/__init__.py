"""The human-expert simulation (DESIGN.md section 8): protocol, oracles, the session driver.

Never imports Qt; `llgui.gui.simulate_dialog` wraps `llgui.sim.run.run_simulation`.
"""
