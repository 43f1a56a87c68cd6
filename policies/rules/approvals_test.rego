package cloudorch_test.approvals

import data.cloudorch
import data.cloudorch.rules.approvals
import data.cloudorch_test.fixtures

old := object.union(fixtures.nodegroup("ng-old", "t3.medium", 2), {"tags": fixtures.owned_tags})

delete_cluster := fixtures.op("DeleteCluster", {})

delete_group(name, reason) := fixtures.op("DeleteNodegroup", {"nodegroupName": name, "reason": reason})

create_group(name, pool) := fixtures.op("CreateNodegroup", {"nodegroupName": name, "pool": pool})

deleting(base) := object.union(base, {"cluster": {"metadata": {"deletionRequested": true}}})

deletion_approval := {
	"rule": "production-deletion-approval",
	"operation": "delete cluster payments-dev",
	"reason": "cluster payments-dev is production (tag environment=production): deleting it destroys it and everything running on it",
}

replacement_approval := {
	"rule": "production-replacement-approval",
	"operation": "replace node group ng-old",
	"reason": "cluster payments-dev is production (tag environment=production): replacing a node group drains and recreates its nodes",
}

test_deleting_a_production_cluster_needs_approval if {
	approvals.approvals == {deletion_approval} with input as fixtures.planning(fixtures.production, [delete_cluster])
}

# Deletion starts with the node groups: the first step of it already needs the approval.
test_deleting_the_node_groups_of_a_production_cluster_needs_approval if {
	base := deleting(fixtures.observing(fixtures.production, [old]))
	approvals.approvals == {deletion_approval} with input as fixtures.planning(base, [delete_group("ng-old", "cluster-deletion")])
}

test_deleting_a_non_production_cluster_needs_none if {
	count(approvals.approvals) == 0 with input as fixtures.planning(fixtures.compliant, [delete_cluster])
}

# A requested deletion with nothing left to delete in EKS (or Retain, which only tags) calls no delete.
test_a_deletion_without_delete_operations_needs_none if {
	count(approvals.approvals) == 0 with input as deleting(fixtures.production)
}

test_replacing_a_production_node_group_needs_approval if {
	base := fixtures.observing(fixtures.production, [old])
	approvals.approvals == {replacement_approval} with input as fixtures.planning(base, [create_group("ng-new", "default")])
	approvals.approvals == {replacement_approval} with input as fixtures.planning(base, [delete_group("ng-old", "replaced")])
}

test_replacing_a_non_production_node_group_needs_none if {
	base := fixtures.observing(fixtures.compliant, [old])
	count(approvals.approvals) == 0 with input as fixtures.planning(base, [create_group("ng-new", "default")])
}

# Adding a pool replaces nothing; a node group deleted by cluster deletion is the deletion's approval.
test_adding_a_pool_or_deleting_the_cluster_is_no_replacement if {
	base := fixtures.observing(fixtures.production, [old])
	count(approvals.approvals) == 0 with input as fixtures.planning(base, [create_group("ng-gpu", "gpu")])
	{a.rule | some a in approvals.approvals} == {"production-deletion-approval"} with input as fixtures.planning(deleting(base), [delete_group("ng-old", "cluster-deletion")])
}

test_settings_turn_each_rule_off if {
	count(approvals.approvals) == 0 with input as fixtures.planning(fixtures.production, [delete_cluster])
		with data.settings.approvals.productionDeletion as false
	base := fixtures.observing(fixtures.production, [old])
	count(approvals.approvals) == 0 with input as fixtures.planning(base, [create_group("ng-new", "default")])
		with data.settings.approvals.productionNodegroupReplacement as false
}

# An approval is not a violation: the plan stays allowed, and the decision lists what needs approving.
test_the_decision_lists_approvals_and_allows if {
	d := cloudorch.decision with input as fixtures.planning(fixtures.production, [delete_cluster])
	d.allow == true
	d.approvals == [deletion_approval]
	d.violations == []
}

# A deny wins: the replacement is denied without the allow tag, and its approval is still listed.
test_a_deny_wins_over_approvals if {
	base := object.union(fixtures.observing(fixtures.production, [old]), {"cluster": {"nodeGroups": [fixtures.pool("default", ["m6i.large"], 2)]}})
	d := cloudorch.decision with input as fixtures.planning(base, [create_group("ng-new", "default")])
	d.allow == false
	"nodegroup-replacement" in fixtures.rules(d.violations)
	d.approvals == [replacement_approval]
}

test_a_waiver_lifts_the_approval_and_reports_it if {
	w := {"rule": "production-deletion-approval", "cluster": "team-payments/dev-small", "reason": "decommissioning, OPS-7", "expires": "2026-12-31"}
	d := cloudorch.decision with input as fixtures.planning(fixtures.production, [delete_cluster])
		with data.settings.waivers as [w]
	d.allow == true
	d.approvals == []
	d.violations == [{
		"rule": "production-deletion-approval",
		"severity": "warn",
		"message": "delete cluster payments-dev would need approval (cluster payments-dev is production (tag environment=production): deleting it destroys it and everything running on it); waived until 2026-12-31: decommissioning, OPS-7",
	}]
}
