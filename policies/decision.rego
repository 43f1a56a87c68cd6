# The one entrypoint: cloudorch/decision. Every package under cloudorch.rules contributes its
# `violations` set, and may contribute an `approvals` set ({rule, operation, reason}: operations a
# human must approve before they run); a new rule file is collected without being registered here.
package cloudorch

import data.cloudorch.waivers

collected contains v if {
	some v in data.cloudorch.rules[_].violations
}

collected contains v if {
	some v in waivers.violations
}

collected contains waivers.waived_approval(a) if {
	some a in collected_approvals
	waivers.approval_waived(a)
}

violations := sort([waivers.apply(v) | some v in collected])

errors := [v | some v in violations; v.severity == "error"]

collected_approvals contains a if {
	some a in data.cloudorch.rules[_].approvals
}

approvals := sort([a | some a in collected_approvals; not waivers.approval_waived(a)])

# Only errors block; warnings are reported and allowed. Approvals never change `allow`: a plan with
# errors is denied whatever it would need approved, and one without runs once they are approved.
decision := {"allow": count(errors) == 0, "violations": violations, "approvals": approvals}
