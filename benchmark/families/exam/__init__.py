"""EXAM and n-EXAM (Sander & Dietz, 2021), with EXAM++'s free-text self-ratings."""
