"""Boards: ranked leaderboards, their rendering, submissions, the results dataset, terminal reports."""
