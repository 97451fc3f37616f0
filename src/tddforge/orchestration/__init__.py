"""Orchestration: stages and loops, with their decisions kept in pure functions."""
