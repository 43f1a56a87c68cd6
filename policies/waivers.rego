# Waivers (settings.waivers): {"rule", "cluster" (record id), "reason", "expires" ("YYYY-MM-DD")}.
# A valid, unexpired waiver turns that rule's errors for that cluster into warnings, and lifts that
# rule's approvals for that cluster (reported as a warning instead); either stays visible. A waiver without a reason or a well-formed expiry is ignored and reported.
package cloudorch.waivers

import data.cloudorch.lib

# Waiving these would let a malformed input or broken settings pass.
unwaivable := {"input-valid", "settings-valid"}

mine contains w if {
	some w in data.settings.waivers
	w.cluster == input.cluster.metadata.id
}

valid(w) if {
	is_string(w.rule)
	trim_space(w.reason) != ""
	regex.match(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, w.expires)
	not w.rule in unwaivable
}

# The expiry day is the first day the waiver no longer applies.
active contains w if {
	some w in mine
	valid(w)
	lib.today < w.expires
}

violations contains {
	"rule": "waiver",
	"severity": "warn",
	"message": sprintf("waiver for rule %v is ignored: it needs a non-blank reason and an expiry date (YYYY-MM-DD), and %v cannot be waived", [w.rule, concat(", ", sort(unwaivable))]),
} if {
	some w in mine
	not valid(w)
}

violations contains {
	"rule": "waiver",
	"severity": "warn",
	"message": sprintf("waiver for rule %v expired on %v", [w.rule, w.expires]),
} if {
	some w in mine
	valid(w)
	not lib.today < w.expires
}

# The first active waiver for the violation's rule, if any.
apply(v) := object.union(v, {
	"severity": "warn",
	"message": sprintf("%v (waived until %v: %v)", [v.message, w.expires, w.reason]),
}) if {
	v.severity == "error"
	ws := [x | some x in active; x.rule == v.rule]
	w := ws[0]
} else := v

# The first active waiver for the approval's rule, if any.
approval_waiver(a) := ws[0] if {
	ws := [x | some x in active; x.rule == a.rule]
}

approval_waived(a) if approval_waiver(a)

# A lifted approval, reported as a warning as a waived error is.
waived_approval(a) := {
	"rule": a.rule,
	"severity": "warn",
	"message": sprintf("%v would need approval (%v); waived until %v: %v", [a.operation, a.reason, w.expires, w.reason]),
} if {
	w := approval_waiver(a)
}
