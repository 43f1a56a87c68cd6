# Platform guard over EKS's upgrade-readiness insights, off unless settings.upgradeReadiness.enforce
# is true. The planner has its own gate (spec.upgrade.readiness: block by default, or warn, or
# ignore); a team may relax that in its spec. With this rule on, a plan that steps the control plane
# (UpdateClusterVersion) while an insight about the target version (or about no version) is in
# ERROR is denied, whatever the spec says. Insights that were not read (readiness ignore skips them)
# cannot show the step is safe: that is denied too (fail closed).
package cloudorch.rules.upgrade_readiness

violations contains {
	"rule": "upgrade-readiness",
	"severity": "error",
	"message": sprintf("the plan upgrades the control plane to %v while EKS upgrade insights for it are in ERROR: %v; fix what they report (aws eks describe-insight), the platform enforces the readiness gate whatever spec.upgrade.readiness says", [op.toVersion, concat("; ", describe(blocking(op.toVersion)))]),
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

enforced if data.settings.upgradeReadiness.enforce == true

insights_read if is_array(input.observed.insights)

# As the planner's gate (lambdas/core/plan/converge.ts): an insight naming no version is about every step.
blocking(version) := [i |
	some i in input.observed.insights
	i.status == "ERROR"
	about(i, version)
]

about(insight, version) if object.get(insight, "kubernetesVersion", version) == version

describe(insights) := sort([sprintf("%v (%v)", [i.name, object.get(i, "reason", i.id)]) | some i in insights])
