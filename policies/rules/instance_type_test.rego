package cloudorch_test.instance_type

import data.cloudorch.rules.instance_type
import data.cloudorch_test.fixtures

test_allowed_instance_type_passes if {
	count(instance_type.violations) == 0 with input as fixtures.compliant
}

test_forbidden_instance_type_is_an_error if {
	vs := instance_type.violations with input as fixtures.with_cluster({"instanceType": "p5.48xlarge"})
	vs == {{
		"rule": "instance-type-allowed",
		"severity": "error",
		"message": "instance type p5.48xlarge is not allowed (see allowlists.instanceTypes)",
	}}
}

test_list_comes_from_data if {
	vs := instance_type.violations with input as fixtures.compliant with data.allowlists.instanceTypes as ["m5.large"]
	count(vs) == 1
}
