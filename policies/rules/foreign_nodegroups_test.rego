package cloudorch_test.foreign_nodegroups

import data.cloudorch.rules.foreign_nodegroups
import data.cloudorch_test.fixtures

ours := fixtures.owned(fixtures.nodegroup("cloudorch-workers", "m5.large", 3), "workers")

theirs := fixtures.nodegroup("team-batch", "m5.large", 3)

# Someone copied one of the two ownership tags: still not CloudOrch's.
half_tagged := object.union(theirs, {"name": "half", "tags": {"cloudorch.io/managed-by": "cloudorch"}})

deleting(name, reason) := fixtures.planning(
	fixtures.observing(fixtures.compliant, [ours, theirs, half_tagged]),
	[fixtures.op("DeleteNodegroup", {"nodegroupName": name, "reason": reason})],
)

test_deleting_a_foreign_group_is_denied if {
	vs := foreign_nodegroups.violations with input as deleting("team-batch", "foreign")
	vs == {{
		"rule": "foreign-nodegroup-deletion",
		"severity": "error",
		"message": "the plan deletes node group team-batch, which CloudOrch did not create (it lacks the tags cloudorch.io/managed-by=cloudorch and cloudorch.io/owner); delete it yourself, or allow it (settings.foreignNodegroups.allowDeletion true, and in AWS the stack prop deleteForeignNodegroups), or waive this rule for the cluster",
	}}
}

test_deleting_our_group_passes if {
	count(foreign_nodegroups.violations) == 0 with input as deleting("cloudorch-workers", "pool-removed")
}

# The reason is the planner's word; the tags decide.
test_reason_is_not_trusted if {
	count(foreign_nodegroups.violations) == 1 with input as deleting("team-batch", "replaced")
	count(foreign_nodegroups.violations) == 1 with input as deleting("half", "pool-removed")
}

test_a_group_not_observed_is_denied if {
	count(foreign_nodegroups.violations) == 1 with input as deleting("gone", "replaced")
}

test_settings_can_allow_it if {
	vs := foreign_nodegroups.violations with input as deleting("team-batch", "foreign")
		with data.settings.foreignNodegroups.allowDeletion as true
	count(vs) == 0
}

# Deleting the cluster deletes its groups first: someone else's group stops it, by default.
test_cluster_deletion_is_not_exempt if {
	base := object.union(deleting("team-batch", "cluster-deletion"), {"cluster": {"metadata": {"deletionRequested": true}}})
	count(foreign_nodegroups.violations) == 1 with input as base
}
