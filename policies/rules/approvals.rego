# Destructive operations on a production cluster (lib.is_production) that a human must approve
# before they run: deleting the cluster, and replacing a pool's node group (its nodes are drained
# and recreated). Each produces an `approvals` entry {rule, operation, reason}, not a violation: the
# plan is allowed, and the pipeline calls nothing until the operation is approved. A deny from any
# rule wins over approvals. Each is on unless settings.approvals says false; a waiver for the rule
# and the cluster lifts it for that cluster (see waivers.rego).
package cloudorch.rules.approvals

import data.cloudorch.lib

# Approvals only; no violations of its own (the decision collects both from every rule package).
violations := set()

tag := data.settings.production.tagKey

approvals contains {
	"rule": "production-deletion-approval",
	"operation": sprintf("delete cluster %v", [input.cluster.clusterName]),
	"reason": sprintf("cluster %v is production (tag %v=%v): deleting it destroys it and everything running on it", [input.cluster.clusterName, tag, input.cluster.tags[tag]]),
} if {
	data.settings.approvals.productionDeletion == true
	lib.is_production
	deletes_cluster
}

approvals contains {
	"rule": "production-replacement-approval",
	"operation": sprintf("replace node group %v", [name]),
	"reason": sprintf("cluster %v is production (tag %v=%v): replacing a node group drains and recreates its nodes", [input.cluster.clusterName, tag, input.cluster.tags[tag]]),
} if {
	data.settings.approvals.productionNodegroupReplacement == true
	lib.is_production
	not lib.deleting
	some name in lib.replaced_nodegroups
}

# As deletion_policy.rego: the plan deletes the cluster, or its node groups on the way there.
deletes_cluster if {
	some op in input.plan
	op.kind == "DeleteCluster"
}

deletes_cluster if {
	lib.deleting
	some op in input.plan
	op.kind == "DeleteNodegroup"
}
