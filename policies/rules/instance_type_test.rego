package cloudorch_test.instance_type

import data.cloudorch.rules.instance_type
import data.cloudorch_test.fixtures

test_allowed_instance_type_passes if {
	count(instance_type.violations) == 0 with input as fixtures.compliant
}

test_forbidden_instance_type_is_an_error if {
	vs := instance_type.violations with input as fixtures.with_pools([fixtures.pool("gpu", ["p5.48xlarge"], 1)])
	vs == {{
		"rule": "instance-type-allowed",
		"severity": "error",
		"message": "pool gpu: instance type p5.48xlarge is not allowed (see allowlists.instanceTypes)",
	}}
}

# A spot pool may list several types: each one is checked, in every pool.
test_every_type_of_every_pool_is_checked if {
	pools := [
		fixtures.pool("system", ["t3.medium"], 2),
		object.union(fixtures.pool("spot", ["m5.large", "x1.mega", "c5.large"], 3), {"capacityType": "SPOT"}),
		fixtures.pool("batch", ["z1d.large"], 1),
	]
	vs := instance_type.violations with input as fixtures.with_pools(pools)
	{v.message | some v in vs} == {
		"pool spot: instance type x1.mega is not allowed (see allowlists.instanceTypes)",
		"pool batch: instance type z1d.large is not allowed (see allowlists.instanceTypes)",
	}
}

test_list_comes_from_data if {
	vs := instance_type.violations with input as fixtures.compliant with data.allowlists.instanceTypes as ["m5.large"]
	count(vs) == 1
}
