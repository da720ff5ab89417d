"""EXAM and n-EXAM (Sander & Dietz, 2021), with EXAM++'s free-text self-ratings."""

from benchmark.families.exam.family import ExamFamily

__all__ = ["ExamFamily"]
