"""Static analysis of test code."""
