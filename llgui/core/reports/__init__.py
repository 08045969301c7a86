"""Every command's report as plain data (score, replay, lifelong, det, campaign, compare, oracle panel): io only writes them, the CLI and the GUI only show them."""
