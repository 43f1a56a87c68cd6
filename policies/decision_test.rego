package cloudorch_test.decision

import data.cloudorch
import data.cloudorch_test.fixtures

test_compliant_input_is_allowed if {
	cloudorch.decision == {"allow": true, "violations": [], "approvals": []} with input as fixtures.compliant
}

# The shape of examples/denied-by-policy.yaml: no team tag, 40 GPU nodes in dev, about $15k a month.
test_denied_example_lists_every_violation if {
	denied := object.union(
		fixtures.with_tags({"environment": "dev"}),
		{"cluster": {"nodeGroups": [fixtures.pool("default", ["g4dn.xlarge"], 40)]}, "estimate": {"monthlyCost": 15433}},
	)
	d := cloudorch.decision with input as denied
	d.allow == false
	fixtures.rules(d.violations) == {"required-tags", "node-count-limit", "cost-threshold"}
}

test_warnings_do_not_block if {
	d := cloudorch.decision with input as fixtures.with_cluster({"kubernetesVersion": "1.32"})
	d.allow == true
	count(d.violations) == 1
}

# A missing input must never be allowed: every rule would otherwise match nothing.
test_missing_input_is_denied if {
	d := cloudorch.decision
	d.allow == false
}

# Every package under cloudorch.rules defines `violations`, and `approvals` only as a set; a
# misnamed set would never be collected.
test_every_rule_package_defines_violations if {
	every name, pkg in data.cloudorch.rules {
		is_set(pkg.violations)
		is_set(object.get(pkg, "approvals", set()))
		is_string(name)
	}
}

test_violations_are_sorted_and_well_formed if {
	d := cloudorch.decision with input as {}
	d.violations == sort(d.violations)
	every v in d.violations {
		object.keys(v) == {"rule", "message", "severity"}
		v.severity in {"error", "warn"}
	}
}

test_approvals_are_sorted_and_well_formed if {
	d := cloudorch.decision with input as fixtures.planning(fixtures.production, [fixtures.op("DeleteCluster", {})])
	count(d.approvals) > 0
	d.approvals == sort(d.approvals)
	every a in d.approvals {
		object.keys(a) == {"rule", "operation", "reason"}
	}
}
