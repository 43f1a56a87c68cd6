# Monthly cost threshold on input.estimate.monthlyCost. A cluster may ask for a higher limit with the
# override tag (settings.cost.overrideTag); the limit applies only up to what
# settings.cost.allowedOverrides grants that cluster id, so a tag alone never raises a limit.
package cloudorch.rules.cost

import data.cloudorch.lib

threshold := to_number(requested) if {
	override_allowed
} else := data.settings.cost.monthlyThresholdUsd

requested := input.cluster.tags[data.settings.cost.overrideTag]

override_allowed if {
	regex.match(`^[0-9]+(\.[0-9]+)?$`, requested)
	grant := data.settings.cost.allowedOverrides[input.cluster.metadata.id]
	is_number(grant)
	to_number(requested) <= grant
}

within_threshold(cost) if cost <= threshold

has_estimate if is_number(input.estimate.monthlyCost)

violations contains {
	"rule": "cost-threshold",
	"severity": "error",
	"message": sprintf("estimated monthly cost %v exceeds the limit of %v", [lib.usd(cost), lib.usd(threshold)]),
} if {
	cost := input.estimate.monthlyCost
	not within_threshold(cost)
}

# No estimate must never read as "cheap": an input without a number here is denied.
violations contains {
	"rule": "cost-threshold",
	"severity": "error",
	"message": "no cost estimate in the input (input.estimate.monthlyCost must be a number)",
} if {
	not has_estimate
}

violations contains {
	"rule": "cost-threshold",
	"severity": "warn",
	"message": sprintf("cost override %v=%v is not granted to %v in settings.cost.allowedOverrides; the default limit applies", [data.settings.cost.overrideTag, requested, input.cluster.metadata.id]),
} if {
	requested
	not override_allowed
}
