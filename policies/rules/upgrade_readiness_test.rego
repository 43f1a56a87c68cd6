package cloudorch_test.upgrade_readiness

import data.cloudorch.rules.upgrade_readiness
import data.cloudorch_test.fixtures

insight(name, status, version) := object.union(
	{"id": concat("-", ["id", name]), "name": name, "status": status, "reason": sprintf("%v reported", [name])},
	{"kubernetesVersion": v | some v in [version]; v != null},
)

step := fixtures.op("UpdateClusterVersion", {"fromVersion": "1.33", "toVersion": "1.34"})

upgrading(insights, readiness) := object.union(
	fixtures.planning(fixtures.with_cluster({"kubernetesVersion": "1.34", "upgrade": {"readiness": readiness}}), [step]),
	{"observed": {"insights": insights}},
)

blocked := upgrading([insight("Deprecated APIs removed in 1.34", "ERROR", "1.34"), insight("Kubelet skew", "PASSING", "1.34")], "warn")

test_off_by_default if {
	count(upgrade_readiness.violations) == 0 with input as blocked
}

test_error_insight_denies_the_step_when_enforced if {
	vs := upgrade_readiness.violations with input as blocked with data.settings.upgradeReadiness.enforce as true
	vs == {{
		"rule": "upgrade-readiness",
		"severity": "error",
		"message": "the plan upgrades the control plane to 1.34 while EKS upgrade insights for it are in ERROR: Deprecated APIs removed in 1.34 (Deprecated APIs removed in 1.34 reported); fix what they report (aws eks describe-insight), the platform enforces the readiness gate whatever spec.upgrade.readiness says",
	}}
}

# An insight naming no version is about every step; one about another version is not.
test_insights_are_matched_by_version if {
	no_version := upgrading([insight("Cluster health", "ERROR", null)], "warn")
	count(upgrade_readiness.violations) == 1 with input as no_version with data.settings.upgradeReadiness.enforce as true
	other := upgrading([insight("Removed in 1.35", "ERROR", "1.35")], "warn")
	count(upgrade_readiness.violations) == 0 with input as other with data.settings.upgradeReadiness.enforce as true
}

test_passing_and_warning_insights_allow_the_step if {
	fine := upgrading([insight("a", "PASSING", "1.34"), insight("b", "WARNING", "1.34"), insight("c", "UNKNOWN", null)], "block")
	count(upgrade_readiness.violations) == 0 with input as fine with data.settings.upgradeReadiness.enforce as true
}

# `ignore` skips reading the insights: with none read, nothing shows the step is safe.
test_unread_insights_deny_the_step if {
	unread := json.remove(upgrading([], "ignore"), ["observed/insights"])
	vs := upgrade_readiness.violations with input as unread with data.settings.upgradeReadiness.enforce as true
	{v.message | some v in vs} == {"the plan upgrades the control plane to 1.34, but EKS's upgrade insights were not read, so nothing shows the upgrade is safe; set spec.upgrade.readiness to block or warn so CloudOrch reads them (the platform enforces the readiness gate)"}
}

test_a_plan_without_a_control_plane_step_passes if {
	no_step := fixtures.planning(blocked, [fixtures.op("UpdateNodegroupVersion", {"nodegroupName": "ng", "pool": "default", "version": "1.34"})])
	count(upgrade_readiness.violations) == 0 with input as no_step with data.settings.upgradeReadiness.enforce as true
}
