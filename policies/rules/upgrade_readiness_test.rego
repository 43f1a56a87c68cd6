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
	{"observed": {"insights": insights, "cluster": {"version": "1.33"}}},
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
		"message": "the plan upgrades the control plane to 1.34 while EKS upgrade insights for it are in ERROR or UNKNOWN: Deprecated APIs removed in 1.34 (Deprecated APIs removed in 1.34 reported); fix what they report (aws eks describe-insight), the platform enforces the readiness gate whatever spec.upgrade.readiness says",
	}}
}

# An insight naming no version is about every step; one about another version is not.
test_insights_are_matched_by_version if {
	no_version := upgrading([insight("Cluster health", "ERROR", null), insight("Kubelet skew", "PASSING", "1.34")], "warn")
	count(upgrade_readiness.violations) == 1 with input as no_version with data.settings.upgradeReadiness.enforce as true
	other := upgrading([insight("Removed in 1.35", "ERROR", "1.35"), insight("Kubelet skew", "PASSING", "1.34")], "warn")
	count(upgrade_readiness.violations) == 0 with input as other with data.settings.upgradeReadiness.enforce as true
}

test_unknown_insight_denies_the_step if {
	unknown := upgrading([insight("Cluster health", "UNKNOWN", "1.34")], "block")
	count(upgrade_readiness.violations) == 1 with input as unknown with data.settings.upgradeReadiness.enforce as true
}

# Right after a step EKS may have no insight about the next minor yet: nothing shows it is safe. Only
# the step about to run is judged so; the plan's later steps are a preview.
test_no_insight_about_the_next_target_denies_the_step if {
	none := upgrading([insight("Kubelet skew", "PASSING", "1.33")], "block")
	vs := upgrade_readiness.violations with input as none with data.settings.upgradeReadiness.enforce as true
	{v.message | some v in vs} == {"the plan upgrades the control plane to 1.34, but EKS has reported no upgrade insight about 1.34 yet (it refreshes them about daily); wait for them (the platform enforces the readiness gate)"}
	preview := fixtures.planning(
		upgrading([insight("Kubelet skew", "PASSING", "1.34")], "block"),
		[step, fixtures.op("UpdateClusterVersion", {"fromVersion": "1.34", "toVersion": "1.35"})],
	)
	count(upgrade_readiness.violations) == 0 with input as preview with data.settings.upgradeReadiness.enforce as true
}

test_passing_and_warning_insights_allow_the_step if {
	fine := upgrading([insight("a", "PASSING", "1.34"), insight("b", "WARNING", "1.34"), insight("c", "PASSING", null)], "block")
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
