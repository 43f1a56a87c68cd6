package cloudorch_test.drift

import data.cloudorch.rules.drift
import data.cloudorch_test.fixtures

test_compliant_observation_passes if {
	base := fixtures.observing(fixtures.compliant, [fixtures.nodegroup("ng", "t3.medium", 2)])
	count(drift.violations) == 0 with input as base
}

test_nothing_observed_passes if {
	count(drift.violations) == 0 with input as fixtures.compliant
}

test_out_of_band_instance_type_is_reported if {
	base := fixtures.observing(fixtures.compliant, [fixtures.nodegroup("ng", "p5.48xlarge", 2)])
	vs := drift.violations with input as base
	vs == {{
		"rule": "observed-drift",
		"severity": "warn",
		"message": "observed node group ng runs instance type p5.48xlarge, which is not allowed",
	}}
}

test_out_of_band_scale_up_is_reported if {
	base := fixtures.observing(fixtures.compliant, [fixtures.nodegroup("ng", "t3.medium", 50)])
	vs := drift.violations with input as base
	some v in vs
	v.message == "observed node group ng may scale to 50 nodes, above the limit of 20 for non-production clusters"
}

test_end_of_life_observed_version_is_reported if {
	base := object.union(fixtures.observing(fixtures.compliant, []), {"observed": {"cluster": {"version": "1.30"}}})
	vs := drift.violations with input as base
	some v in vs
	v.message == "observed cluster runs Kubernetes 1.30, which is end-of-life"
}

test_observed_region_is_reported if {
	base := object.union(fixtures.observing(fixtures.compliant, []), {"observed": {"cluster": {"region": "cn-north-1"}}})
	count(drift.violations) == 1 with input as base
}
