package cloudorch_test.waivers

import data.cloudorch
import data.cloudorch_test.fixtures

expensive := object.union(fixtures.compliant, {"estimate": {"monthlyCost": 15364.2}})

waiver(extra) := object.union({"rule": "cost-threshold", "cluster": "team-payments/dev-small", "reason": "GPU trial, ticket OPS-1", "expires": "2026-12-31"}, extra)

test_active_waiver_turns_the_error_into_a_warning if {
	d := cloudorch.decision with input as expensive with data.settings.waivers as [waiver({})]
	d.allow == true
	d.violations == [{
		"rule": "cost-threshold",
		"severity": "warn",
		"message": "estimated monthly cost $15364.20 exceeds the limit of $5000.00 (waived until 2026-12-31: GPU trial, ticket OPS-1)",
	}]
}

test_expired_waiver_does_not_apply if {
	d := cloudorch.decision with input as expensive with data.settings.waivers as [waiver({"expires": "2026-11-29"})]
	d.allow == false
	"waiver" in {v.rule | some v in d.violations}
}

test_waiver_without_reason_is_ignored_and_reported if {
	d := cloudorch.decision with input as expensive with data.settings.waivers as [waiver({"reason": " "})]
	d.allow == false
	some v in d.violations
	v.rule == "waiver"
	startswith(v.message, "waiver for rule cost-threshold is ignored")
}

test_waiver_without_expiry_is_ignored if {
	d := cloudorch.decision with input as expensive with data.settings.waivers as [json.remove(waiver({}), ["expires"])]
	d.allow == false
}

test_waiver_for_another_cluster_does_not_apply if {
	d := cloudorch.decision with input as expensive with data.settings.waivers as [waiver({"cluster": "other/x"})]
	d.allow == false
	not "waiver" in {v.rule | some v in d.violations}
}

test_input_validation_cannot_be_waived if {
	bad := json.remove(fixtures.compliant, ["now"])
	d := cloudorch.decision with input as bad with data.settings.waivers as [waiver({"rule": "input-valid"})]
	d.allow == false
}
