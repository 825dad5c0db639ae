"""Placeholder for the FlexSN demo (`hatch run demo`); the real demo replaces this file."""

print("demo not written yet")
