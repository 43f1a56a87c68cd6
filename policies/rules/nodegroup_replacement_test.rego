package cloudorch_test.nodegroup_replacement

import data.cloudorch.rules.nodegroup_replacement
import data.cloudorch_test.fixtures

old := fixtures.nodegroup("ng-old", "m5.large", 3)

create_new := [fixtures.op("CreateNodegroup", {"nodegroupName": "ng-new"})]

delete_old := [fixtures.op("DeleteNodegroup", {"nodegroupName": "ng-old"})]

prod_replacing := fixtures.planning(fixtures.observing(fixtures.production, [old]), create_new)

test_replacement_in_non_production_passes if {
	base := fixtures.observing(fixtures.compliant, [old])
	count(nodegroup_replacement.violations) == 0 with input as fixtures.planning(base, create_new)
}

test_replacement_in_production_is_an_error if {
	vs := nodegroup_replacement.violations with input as prod_replacing
	vs == {{
		"rule": "nodegroup-replacement",
		"severity": "error",
		"message": "the plan replaces node group ng-old of a production cluster; set tag allow-nodegroup-replacement=true to allow it",
	}}
}

test_allow_tag_permits_replacement if {
	base := object.union(prod_replacing, {"cluster": {"tags": {"allow-nodegroup-replacement": "true"}}})
	count(nodegroup_replacement.violations) == 0 with input as base
}

test_deleting_the_old_group_is_guarded_too if {
	base := fixtures.observing(fixtures.production, [old, fixtures.nodegroup("ng-new", "m6i.large", 3)])
	count(nodegroup_replacement.violations) == 1 with input as fixtures.planning(base, delete_old)
}

test_first_nodegroup_is_not_a_replacement if {
	count(nodegroup_replacement.violations) == 0 with input as fixtures.planning(fixtures.production, create_new)
}

test_cluster_deletion_is_not_a_replacement if {
	base := object.union(fixtures.observing(fixtures.production, [old]), {"cluster": {"metadata": {"deletionRequested": true}}})
	count(nodegroup_replacement.violations) == 0 with input as fixtures.planning(base, delete_old)
}
