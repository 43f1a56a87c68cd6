package cloudorch_test.cost

import data.cloudorch.rules.cost
import data.cloudorch_test.fixtures

expensive := object.union(fixtures.compliant, {"estimate": {"monthlyCost": 15364.2}})

test_cheap_cluster_passes if {
	count(cost.violations) == 0 with input as fixtures.compliant
}

test_cost_above_threshold_is_an_error if {
	vs := cost.violations with input as expensive
	vs == {{
		"rule": "cost-threshold",
		"severity": "error",
		"message": "estimated monthly cost $15364.20 exceeds the limit of $5000.00",
	}}
}

# The failure this rule exists for: a missing estimate must not read as zero cost.
test_missing_estimate_is_an_error if {
	vs := cost.violations with input as json.remove(fixtures.compliant, ["estimate"])
	some v in vs
	v.severity == "error"
	startswith(v.message, "no cost estimate")
}

granted := {"team-payments/dev-small": 20000}

test_granted_override_raises_the_limit if {
	vs := cost.violations with input as fixtures.with_tags({"team": "p", "environment": "dev", "cost-limit-usd": "16000"})
		with input.estimate.monthlyCost as 15364.2
		with data.settings.cost.allowedOverrides as granted
	count(vs) == 0
}

test_override_above_the_grant_is_ignored if {
	vs := cost.violations with input as fixtures.with_tags({"team": "p", "environment": "dev", "cost-limit-usd": "50000"})
		with input.estimate.monthlyCost as 15364.2
		with data.settings.cost.allowedOverrides as granted
	fixtures.rules(vs) == {"cost-threshold"}
	{v.severity | some v in vs} == {"error", "warn"}
}

test_override_without_a_grant_is_ignored if {
	vs := cost.violations with input as fixtures.with_tags({"team": "p", "environment": "dev", "cost-limit-usd": "16000"})
		with input.estimate.monthlyCost as 15364.2
	some v in vs
	v.severity == "error"
	v.message == "estimated monthly cost $15364.20 exceeds the limit of $5000.00"
}

test_malformed_override_is_ignored if {
	vs := cost.violations with input as fixtures.with_tags({"team": "p", "environment": "dev", "cost-limit-usd": "lots"})
		with data.settings.cost.allowedOverrides as granted
	{v.severity | some v in vs} == {"warn"}
}

test_string_grant_does_not_raise_the_limit if {
	vs := cost.violations with input as fixtures.with_tags({"team": "p", "environment": "dev", "cost-limit-usd": "16000"})
		with input.estimate.monthlyCost as 15364.2
		with data.settings.cost.allowedOverrides as {"team-payments/dev-small": "20000"}
	{v.severity | some v in vs} == {"error", "warn"}
}
