package cloudorch_test.nodegroup_replacement

import data.cloudorch.rules.nodegroup_replacement
import data.cloudorch_test.fixtures

# A pre-pools group (ownership tags, no pool tag: pool default) and a group of the pool workers.
old := object.union(fixtures.nodegroup("ng-old", "m5.large", 3), {"tags": fixtures.owned_tags})

workers := fixtures.owned(fixtures.nodegroup("ng-workers", "m5.large", 3), "workers")

foreign := fixtures.nodegroup("ng-theirs", "m5.large", 3)

pools := [fixtures.pool("default", ["m6i.large"], 3), fixtures.pool("workers", ["m5.large"], 3)]

create(name, pool) := fixtures.op("CreateNodegroup", {"nodegroupName": name, "pool": pool})

delete(name, reason) := fixtures.op("DeleteNodegroup", {"nodegroupName": name, "reason": reason})

prod(ngs, ops) := fixtures.planning(fixtures.observing(prod_pools, ngs), ops)

prod_pools := object.union(fixtures.with_pools(pools), {"cluster": {"tags": fixtures.production.cluster.tags}})

prod_replacing := prod([old, workers], [create("ng-new", "default")])

test_replacement_in_non_production_passes if {
	base := fixtures.observing(fixtures.with_pools(pools), [old, workers])
	count(nodegroup_replacement.violations) == 0 with input as fixtures.planning(base, [create("ng-new", "default")])
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

# Adding a pool creates a group beside the others: nothing is replaced.
test_adding_a_pool_is_not_a_replacement if {
	count(nodegroup_replacement.violations) == 0 with input as prod([old, workers], [create("ng-gpu", "gpu")])
}

test_first_nodegroup_is_not_a_replacement if {
	count(nodegroup_replacement.violations) == 0 with input as prod([], [create("ng-new", "default")])
}

# A foreign group belongs to no pool: a group created beside it replaces nothing.
test_foreign_groups_are_in_no_pool if {
	count(nodegroup_replacement.violations) == 0 with input as prod([foreign], [create("ng-new", "default")])
}

test_deleting_the_old_group_is_guarded_too if {
	new := fixtures.owned(fixtures.nodegroup("ng-new", "m6i.large", 3), "default")
	vs := nodegroup_replacement.violations with input as prod([old, new, workers], [delete("ng-old", "replaced")])
	{v.message | some v in vs} == {"the plan replaces node group ng-old of a production cluster; set tag allow-nodegroup-replacement=true to allow it"}
}

# The tags decide, not the reason: a group of a listed pool deleted "as foreign" is still replaced.
test_reason_is_not_trusted if {
	count(nodegroup_replacement.violations) == 1 with input as prod([old, workers], [delete("ng-workers", "foreign")])
}

test_removing_a_pool_is_guarded if {
	base := json.patch(prod([old, workers], [delete("ng-workers", "pool-removed")]), [{"op": "replace", "path": "/cluster/nodeGroups", "value": [pools[0]]}])
	vs := nodegroup_replacement.violations with input as base
	vs == {{
		"rule": "nodegroup-replacement",
		"severity": "error",
		"message": "the plan removes pool workers (node group ng-workers) from a production cluster; set tag allow-nodegroup-replacement=true to allow it",
	}}
	allowed := object.union(base, {"cluster": {"tags": {"allow-nodegroup-replacement": "true"}}})
	count(nodegroup_replacement.violations) == 0 with input as allowed
}

test_removing_an_unobserved_group_is_taken_at_its_word if {
	op := object.union(delete("ng-gone", "pool-removed"), {"pool": "batch"})
	vs := nodegroup_replacement.violations with input as prod([old], [op])
	{v.message | some v in vs} == {"the plan removes pool batch (node group ng-gone) from a production cluster; set tag allow-nodegroup-replacement=true to allow it"}
}

# Deleting a foreign group is foreign_nodegroups' to judge, not a replacement.
test_deleting_a_foreign_group_is_not_a_replacement if {
	count(nodegroup_replacement.violations) == 0 with input as prod([old, foreign], [delete("ng-theirs", "foreign")])
}

test_removal_in_non_production_passes if {
	base := fixtures.observing(fixtures.compliant, [old, workers])
	count(nodegroup_replacement.violations) == 0 with input as fixtures.planning(base, [delete("ng-workers", "pool-removed")])
}

test_cluster_deletion_is_not_a_replacement if {
	base := object.union(prod([old, workers], [delete("ng-old", "cluster-deletion"), delete("ng-workers", "cluster-deletion")]), {"cluster": {"metadata": {"deletionRequested": true}}})
	count(nodegroup_replacement.violations) == 0 with input as base
}
