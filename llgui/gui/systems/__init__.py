"""The Systems tab: a campaign's leaderboard and the paired test against a baseline."""
