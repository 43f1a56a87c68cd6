# Plan guard for production clusters, both needing the tag settings.nodegroupReplacement.allowTag
# set to "true":
# - replacing a pool's node group (a new group for a pool that already has one, or deleting a group
#   whose pool the spec still lists): nodes are drained and recreated;
# - removing a pool (deleting a CloudOrch group whose pool the spec no longer lists): capacity goes.
# Adding a pool creates a group beside the others and is no replacement. The pool of a group is read
# from its tags (lib.pool_of), not from the operation; cluster deletion is exempt (deletion-policy
# guards it), and foreign groups are foreign_nodegroups.rego's.
package cloudorch.rules.nodegroup_replacement

import data.cloudorch.lib

allow_tag := data.settings.nodegroupReplacement.allowTag

violations contains guard(sprintf("the plan replaces node group %v of a production cluster; set tag %v=true to allow it", [name, allow_tag])) if {
	some name in replaced
}

violations contains guard(sprintf("the plan removes pool %v (node group %v) from a production cluster; set tag %v=true to allow it", [pool, name, allow_tag])) if {
	some r in removed
	[name, pool] := r
}

guard(message) := {"rule": "nodegroup-replacement", "severity": "error", "message": message}

guarded if {
	lib.is_production
	not lib.deleting
	not replacement_allowed
}

replacement_allowed if input.cluster.tags[allow_tag] == "true"

# lib.replaced_nodegroups: a new group for a pool that already has one replaces the group it has,
# and deleting a group of a pool the spec still lists replaces it, whatever the reason says.
replaced contains name if {
	guarded
	some name in lib.replaced_nodegroups
}

listed(pool) if pool in lib.pool_names

removed contains [op.nodegroupName, pool] if {
	guarded
	some op in deletions
	pool := lib.pool_of(lib.observed_nodegroup(op.nodegroupName))
	not listed(pool)
}

# A group that is not observed (so has no tags to read) is taken at the operation's word.
removed contains [op.nodegroupName, object.get(op, "pool", "(not named)")] if {
	guarded
	some op in deletions
	op.reason == "pool-removed"
	not lib.observed_nodegroup(op.nodegroupName)
}

deletions contains op if {
	some op in input.plan
	op.kind == "DeleteNodegroup"
}
