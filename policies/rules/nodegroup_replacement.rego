# Plan guard: replacing a node group of a production cluster (create a new one beside it, or delete
# one while the cluster stays) needs the tag settings.nodegroupReplacement.allowTag set to "true".
package cloudorch.rules.nodegroup_replacement

import data.cloudorch.lib

violations contains {
	"rule": "nodegroup-replacement",
	"severity": "error",
	"message": sprintf("the plan replaces node group %v of a production cluster; set tag %v=true to allow it", [name, data.settings.nodegroupReplacement.allowTag]),
} if {
	lib.is_production
	not replacement_allowed
	some name in replaced
}

replacement_allowed if input.cluster.tags[data.settings.nodegroupReplacement.allowTag] == "true"

# A new group beside an existing one starts a replacement of the existing one.
replaced contains ng.name if {
	some op in input.plan
	op.kind == "CreateNodegroup"
	some ng in input.observed.nodegroups
	ng.name != op.nodegroupName
}

# CloudOrch keeps one group per cluster, so deleting one outside cluster deletion replaces it.
replaced contains op.nodegroupName if {
	not lib.deleting
	some op in input.plan
	op.kind == "DeleteNodegroup"
}
