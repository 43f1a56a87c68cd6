package cloudorch_test.region

import data.cloudorch.rules.region
import data.cloudorch_test.fixtures

test_allowed_region_passes if {
	count(region.violations) == 0 with input as fixtures.compliant
}

test_forbidden_region_is_an_error if {
	vs := region.violations with input as fixtures.with_cluster({"region": "cn-north-1"})
	some v in vs
	v.rule == "region-allowed"
	v.severity == "error"
	startswith(v.message, "region cn-north-1 is not allowed (allowed: us-east-1, ")
}

# The allowlist is data, not code: a region is allowed exactly when the data file lists it.
test_list_comes_from_data if {
	vs := region.violations with input as fixtures.compliant with data.allowlists.regions as ["eu-west-1"]
	count(vs) == 1
}
