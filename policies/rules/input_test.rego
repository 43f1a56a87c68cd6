package cloudorch_test.input

import data.cloudorch.rules.input as rule
import data.cloudorch_test.fixtures

test_well_formed_input_passes if {
	count(rule.violations) == 0 with input as fixtures.compliant
}

test_empty_input_is_an_error if {
	vs := rule.violations with input as {}
	count(vs) > 5
	{v.severity | some v in vs} == {"error"}
}

test_missing_estimate_is_named if {
	vs := rule.violations with input as json.remove(fixtures.compliant, ["estimate/monthlyCost"])
	vs == {{
		"rule": "input-valid",
		"severity": "error",
		"message": "policy input is malformed: input.estimate.monthlyCost must be number",
	}}
}

test_plan_entries_need_a_kind if {
	vs := rule.violations with input as fixtures.planning(fixtures.compliant, [{"clusterName": "x"}])
	count(vs) == 1
}

test_plan_must_be_an_array if {
	count(rule.violations) == 1 with input as fixtures.planning(fixtures.compliant, "DeleteCluster")
}

test_wrong_types_are_named if {
	vs := rule.violations with input as fixtures.with_cluster({"clusterName": 40, "metadata": {"deletionRequested": "no"}})
	count(vs) == 2
}

# The flat fields are gone: the pools are the contract.
test_pools_are_required if {
	vs := rule.violations with input as json.remove(fixtures.compliant, ["cluster/nodeGroups"])
	{v.message | some v in vs} == {"policy input is malformed: input.cluster.nodeGroups must be array"}
}

test_each_pool_is_checked if {
	bad := {"name": 7, "instanceTypes": "t3.medium", "nodeCount": "2", "maxSize": "500"}
	vs := rule.violations with input as fixtures.with_pools([fixtures.pool("ok", ["t3.medium"], 1), bad])
	{v.message | some v in vs} == {
		"policy input is malformed: input.cluster.nodeGroups[1].name must be string",
		"policy input is malformed: input.cluster.nodeGroups[1].instanceTypes must be array",
		"policy input is malformed: input.cluster.nodeGroups[1].nodeCount must be number",
		"policy input is malformed: input.cluster.nodeGroups[1].maxSize must be null or number",
		"policy input is malformed: input.cluster.nodeGroups[1].capacityType must be string",
		"policy input is malformed: input.cluster.nodeGroups[1].scaling must be string",
		"policy input is malformed: input.cluster.nodeGroups[1].labels must be object",
		"policy input is malformed: input.cluster.nodeGroups[1].taints must be array",
	}
}

# The plan guards read these; an operation without them must not slip past a guard.
test_node_group_operations_are_checked if {
	ops := [{"kind": "DeleteNodegroup"}, {"kind": "CreateNodegroup", "nodegroupName": "ng", "pool": 1}, {"kind": "Wait"}]
	vs := rule.violations with input as fixtures.planning(fixtures.compliant, ops)
	{v.message | some v in vs} == {
		"policy input is malformed: input.plan[0].nodegroupName must be string",
		"policy input is malformed: input.plan[0].reason must be string",
		"policy input is malformed: input.plan[1].pool must be string",
	}
}

test_observed_cluster_must_be_object_or_null if {
	count(rule.violations) == 1 with input as object.union(fixtures.compliant, {"observed": {"cluster": "eks"}})
}

test_now_must_be_utc_rfc3339 if {
	count(rule.violations) == 1 with input as fixtures.compliant with input.now as "2026-11-29T12:00:00+02:00"
	count(rule.violations) == 0 with input as fixtures.compliant with input.now as "2026-11-29T12:00:00Z"
}

test_observed_entries_are_checked if {
	base := fixtures.observing(fixtures.compliant, [{"name": "ng", "instanceTypes": "t3.medium"}])
	vs := rule.violations with input as base
	{v.message | some v in vs} == {
		"policy input is malformed: input.observed.nodegroups[0].instanceTypes must be array",
		"policy input is malformed: input.observed.nodegroups[0].scaling.desiredSize must be number",
		"policy input is malformed: input.observed.nodegroups[0].scaling.maxSize must be number",
		"policy input is malformed: input.observed.nodegroups[0].tags must be object",
	}
}

test_input_that_is_not_an_object_is_an_error if {
	count(rule.violations) == 16 with input as "cluster"
}

test_optional_sizes_are_null_or_numbers if {
	sized := object.union(fixtures.pool("p", ["t3.medium"], 1), {"minSize": 0, "maxSize": null})
	count(rule.violations) == 0 with input as fixtures.with_pools([sized])
}

# Add-ons, access and insights are optional; when present, the fields the rules read are checked.
test_optional_parts_may_be_absent_or_well_formed if {
	input_ := object.union(
		fixtures.with_cluster({
			"addons": [{"name": "coredns", "version": "default", "resolveConflicts": "OVERWRITE"}],
			"access": {"authenticationMode": "API", "exclusive": false, "entries": [{"principalArn": "arn:aws:iam::1:role/a", "policies": []}]},
		}),
		{"observed": {
			"accessEntries": [{"principalArn": "arn:aws:iam::1:role/a", "policies": []}],
			"insights": [{"id": "i", "name": "n", "status": "PASSING"}, {"id": "j", "name": "m", "status": "ERROR", "kubernetesVersion": "1.34"}],
		}},
	)
	count(rule.violations) == 0 with input as input_
}

test_optional_parts_are_checked if {
	input_ := object.union(
		fixtures.with_cluster({"addons": [{"version": "default"}], "access": {"entries": [{"principalArn": 1, "policies": []}]}}),
		{"observed": {
			"accessEntries": [{"principalArn": "arn:aws:iam::1:role/a"}],
			"insights": [{"id": "i", "name": "n", "kubernetesVersion": 134}],
		}},
	)
	vs := rule.violations with input as input_
	{v.message | some v in vs} == {
		"policy input is malformed: input.cluster.addons[0].name must be string",
		"policy input is malformed: input.cluster.access.entries[0].principalArn must be string",
		"policy input is malformed: input.observed.accessEntries[0].policies must be array",
		"policy input is malformed: input.observed.insights[0].status must be string",
		"policy input is malformed: input.observed.insights[0].kubernetesVersion must be null or string",
	}
}

test_access_needs_its_entries_list if {
	vs := rule.violations with input as fixtures.with_cluster({"addons": {}, "access": {"entries": "all"}})
	{v.message | some v in vs} == {
		"policy input is malformed: input.cluster.addons must be array or null",
		"policy input is malformed: input.cluster.access.entries must be array",
	}
}

test_addon_access_and_version_operations_are_checked if {
	ops := [{"kind": "DeleteAddon"}, {"kind": "AssociateAccessPolicy", "principalArn": "arn:aws:iam::1:role/a"}, {"kind": "UpdateClusterVersion", "toVersion": 1.34}]
	vs := rule.violations with input as fixtures.planning(fixtures.compliant, ops)
	{v.message | some v in vs} == {
		"policy input is malformed: input.plan[0].addonName must be string",
		"policy input is malformed: input.plan[1].policyArn must be string",
		"policy input is malformed: input.plan[2].toVersion must be string",
	}
}
