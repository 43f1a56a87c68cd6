# Plan guard: deleting a node group CloudOrch did not create (it lacks the ownership tags) is denied
# unless settings.foreignNodegroups.allowDeletion is true. Ownership is read from the observed
# group's tags, never from the operation's `reason`. Cluster deletion is not exempt: EKS deletes a
# cluster only once its node groups are gone, and a group someone else made is theirs to remove.
package cloudorch.rules.foreign_nodegroups

import data.cloudorch.lib

violations contains {
	"rule": "foreign-nodegroup-deletion",
	"severity": "error",
	"message": sprintf("the plan deletes node group %v, which CloudOrch did not create (it lacks the tags %v=cloudorch and %v); delete it yourself, or allow it (settings.foreignNodegroups.allowDeletion true, and in AWS the stack prop deleteForeignNodegroups), or waive this rule for the cluster", [op.nodegroupName, lib.managed_by_tag, lib.owner_tag]),
} if {
	not deletion_allowed
	some op in input.plan
	op.kind == "DeleteNodegroup"
	not owned(op.nodegroupName)
}

deletion_allowed if data.settings.foreignNodegroups.allowDeletion == true

# A group that is not observed cannot be shown to be CloudOrch's: fail closed.
owned(name) if lib.created_by_cloudorch(lib.observed_nodegroup(name))
