"""The one statistics module (agents.stats): the intervals every report shares."""

from __future__ import annotations

import math

import numpy as np

from agents.stats import Z95, mean_interval, percentile_interval, wilson_interval


def test_z95_is_the_normal_quantile_of_a_95_percent_interval():
    # Phi(Z95) = 0.975: half of 5% in each tail.
    assert math.isclose(0.5 * math.erfc(-Z95 / math.sqrt(2)), 0.975, rel_tol=1e-12)


def test_mean_interval_is_the_mean_plus_minus_z95_standard_errors():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    mean, lo, hi = mean_interval(x)
    se = math.sqrt(2.5) / math.sqrt(5)  # sample variance 2.5
    assert mean == 2.0
    assert math.isclose(hi - mean, Z95 * se) and math.isclose(mean - lo, Z95 * se)


def test_mean_interval_of_one_value_has_no_width_to_give():
    mean, lo, hi = mean_interval(np.array([0.25]))
    assert mean == 0.25 and math.isnan(lo) and math.isnan(hi)


def test_percentile_interval_takes_the_middle_95_percent_of_each_column():
    samples = np.stack([np.arange(1001.0), -np.arange(1001.0)], axis=1)
    low, high = percentile_interval(samples)
    assert low.tolist() == [25.0, -975.0] and high.tolist() == [975.0, -25.0]


def test_wilson_interval_holds_its_proportion_even_at_zero_and_one():
    # In floating point the lower bound at 0 successes came out 2.8e-17 (n = 6), above the
    # proportion: report.png's error bar was then negative and `speed evaluate --games 7` failed.
    for n in range(1, 200):
        for k in (0, 0.5, n / 2, n - 0.5, n):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n, lo, hi)
    assert wilson_interval(0, 6)[0] == 0.0 and wilson_interval(6, 6)[1] == 1.0
