"""Agents: each one pairs a prompt template with the parsing of its replies."""
