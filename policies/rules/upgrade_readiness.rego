# Platform guard over EKS's upgrade-readiness insights, off unless settings.upgradeReadiness.enforce
# is true. The planner has its own gate (spec.upgrade.readiness: block by default, or warn, or
# ignore); a team may relax that in its spec. With this rule on, a plan that steps the control plane
# (UpdateClusterVersion) while an insight about the target version (or about no version) is in
# ERROR or UNKNOWN, or while EKS has reported none about the next step's target, is denied, whatever
# the spec says. Insights that were not read (readiness ignore skips them)
# cannot show the step is safe: that is denied too (fail closed).
package cloudorch.rules.upgrade_readiness

violations contains {
	"rule": "upgrade-readiness",
	"severity": "error",
	"message": sprintf("the plan upgrades the control plane to %v while EKS upgrade insights for it are in ERROR or UNKNOWN: %v; fix what they report (aws eks describe-insight), the platform enforces the readiness gate whatever spec.upgrade.readiness says", [op.toVersion, concat("; ", describe(blocking(op.toVersion)))]),
} if {
	enforced
	some op in input.plan
	op.kind == "UpdateClusterVersion"
	insights_read
	count(blocking(op.toVersion)) > 0
}

violations contains {
	"rule": "upgrade-readiness",
	"severity": "error",
	"message": sprintf("the plan upgrades the control plane to %v, but EKS's upgrade insights were not read, so nothing shows the upgrade is safe; set spec.upgrade.readiness to block or warn so CloudOrch reads them (the platform enforces the readiness gate)", [op.toVersion]),
} if {
	enforced
	some op in input.plan
	op.kind == "UpdateClusterVersion"
	not insights_read
}

# The step about to run (the plan's later steps are a preview: EKS reports insights about the next
# minor only). EKS has reported nothing about its target yet: nothing shows it is safe either.
violations contains {
	"rule": "upgrade-readiness",
	"severity": "error",
	"message": sprintf("the plan upgrades the control plane to %v, but EKS has reported no upgrade insight about %v yet (it refreshes them about daily); wait for them (the platform enforces the readiness gate)", [op.toVersion, op.toVersion]),
} if {
	enforced
	insights_read
	some op in input.plan
	op.kind == "UpdateClusterVersion"
	op.fromVersion == input.observed.cluster.version
	not reported(op.toVersion)
}

enforced if data.settings.upgradeReadiness.enforce == true

reported(version) if {
	some i in input.observed.insights
	i.kubernetesVersion == version
}

insights_read if is_array(input.observed.insights)

# As the planner's gate (lambdas/core/plan/converge.ts): an insight naming no version is about every
# step, and UNKNOWN shows nothing safe any more than ERROR does.
blocking(version) := [i |
	some i in input.observed.insights
	i.status in {"ERROR", "UNKNOWN"}
	about(i, version)
]

about(insight, version) if object.get(insight, "kubernetesVersion", version) == version

describe(insights) := sort([sprintf("%v (%v)", [i.name, object.get(i, "reason", i.id)]) | some i in insights])
