"""Choosing schedules: the block-size rules and (later) the tuner that ranks schedules."""

from gpusim.tuning.rules import default_schedule, paper_rule, seed_rule

__all__ = ["default_schedule", "paper_rule", "seed_rule"]
