# Plan guard: a plan may delete the cluster (or its node groups on the way there) only when the
# spec says deletionPolicy: Delete. Anything else, including a missing field, is a deny.
package cloudorch.rules.deletion_policy

import data.cloudorch.lib

violations contains {
	"rule": "deletion-policy",
	"severity": "error",
	"message": sprintf("the plan would %v, but deletionPolicy is not Delete", [describe(op)]),
} if {
	some op in input.plan
	deletes(op)
	not deletion_allowed
}

deletion_allowed if input.cluster.deletionPolicy == "Delete"

deletes(op) if op.kind == "DeleteCluster"

deletes(op) if {
	op.kind == "DeleteNodegroup"
	lib.deleting
}

describe(op) := sprintf("delete cluster %v", [op.clusterName]) if op.kind == "DeleteCluster"

else := sprintf("delete node group %v", [op.nodegroupName])
