package cloudorch_test.deletion_policy

import data.cloudorch.rules.deletion_policy
import data.cloudorch_test.fixtures

delete_cluster := [fixtures.op("DeleteCluster", {})]

test_delete_with_policy_delete_passes if {
	count(deletion_policy.violations) == 0 with input as fixtures.planning(fixtures.compliant, delete_cluster)
}

test_delete_with_policy_retain_is_an_error if {
	vs := deletion_policy.violations with input as fixtures.planning(fixtures.with_cluster({"deletionPolicy": "Retain"}), delete_cluster)
	vs == {{
		"rule": "deletion-policy",
		"severity": "error",
		"message": "the plan would delete cluster payments-dev, but deletionPolicy is not Delete",
	}}
}

# A missing field must deny, not compare as "not equal" and pass.
test_delete_without_policy_is_an_error if {
	base := json.remove(fixtures.compliant, ["cluster/deletionPolicy"])
	count(deletion_policy.violations) == 1 with input as fixtures.planning(base, delete_cluster)
}

test_nodegroup_deletion_during_cluster_deletion_is_guarded if {
	base := fixtures.with_cluster({"deletionPolicy": "Retain", "metadata": {"deletionRequested": true}})
	ops := [fixtures.op("DeleteNodegroup", {"nodegroupName": "ng-a"})]
	vs := deletion_policy.violations with input as fixtures.planning(base, ops)
	some v in vs
	v.message == "the plan would delete node group ng-a, but deletionPolicy is not Delete"
}

test_nodegroup_deletion_outside_deletion_is_not_this_rule if {
	base := fixtures.with_cluster({"deletionPolicy": "Retain"})
	ops := [fixtures.op("DeleteNodegroup", {"nodegroupName": "ng-a"})]
	count(deletion_policy.violations) == 0 with input as fixtures.planning(base, ops)
}
