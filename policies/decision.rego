# The one entrypoint: cloudorch/decision. Every package under cloudorch.rules contributes its
# `violations` set; a new rule file is collected without being registered here.
package cloudorch

import data.cloudorch.waivers

collected contains v if {
	some v in data.cloudorch.rules[_].violations
}

collected contains v if {
	some v in waivers.violations
}

violations := sort([waivers.apply(v) | some v in collected])

errors := [v | some v in violations; v.severity == "error"]

# Only errors block; warnings are reported and allowed.
decision := {"allow": count(errors) == 0, "violations": violations}
